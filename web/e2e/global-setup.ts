import { ensureWebBuild } from './server';

/** One production build of the client for every browser file, before the first starts. */
export default function setup(): void {
  ensureWebBuild();
}

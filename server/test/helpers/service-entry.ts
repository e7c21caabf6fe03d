import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * How a test starts the service as a process of its own (`node <these> --role worker`, from the
 * server directory): the run's transpiled server (test/global-setup.ts) under vitest, the sources
 * through tsx otherwise (npm run prove).
 */
export function serviceEntry(): string[] {
  const build = process.env.CPS_TEST_SERVICE_BUILD;
  return build && existsSync(path.join(build, 'main.js')) ? [path.join(build, 'main.js')] : ['--import', 'tsx', 'src/main.ts'];
}

import path from 'node:path';
import type { Config } from '../config.js';
import { LocalFileStorage } from './local.js';
import type { FileStorage } from './types.js';

/**
 * The one place that picks the storage implementation. An S3-compatible store plugs in here
 * (a class implementing FileStorage, chosen by configuration); nothing else changes, since
 * callers only ever hold opaque keys and serve them through signed links (signed-url.ts).
 */
export function createFileStorage(config: Config): FileStorage {
  return new LocalFileStorage(path.join(config.dataDir, 'files'));
}

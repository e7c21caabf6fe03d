import path from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { LocalFileStorage } from './local.js';
import { S3FileStorage, s3OptionsFromEnv } from './s3.js';
import type { FileStorage } from './types.js';

/**
 * The one place that picks the storage implementation: STORAGE=s3 (storage/s3.ts, S3_* settings)
 * or local disk under DATA_DIR (the default). Nothing else changes, since callers only ever hold
 * opaque keys and serve them through signed links (signed-url.ts).
 */
export function createFileStorage(config: Config): FileStorage {
  const kind = config.env.STORAGE || 'local';
  if (kind === 's3') return new S3FileStorage(s3OptionsFromEnv(config.env, config.dataDir));
  if (kind !== 'local') throw new ConfigError(`STORAGE must be "local" or "s3", got "${kind}"`);
  return new LocalFileStorage(path.join(config.dataDir, 'files'));
}

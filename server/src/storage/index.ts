import path from 'node:path';
import type { Config } from '../config.js';
import { LocalFileStorage } from './local.js';
import type { FileStorage } from './types.js';

/**
 * The one place that picks the storage implementation: STORAGE=s3 (storage/s3.ts, S3_* settings)
 * or local disk under DATA_DIR (the default). Nothing else changes, since callers only ever hold
 * opaque keys and serve them through signed links (signed-url.ts). The S3 SDK is loaded only
 * when it is used: 23 MB of memory per thread that reads it (npm start has two).
 */
export async function createFileStorage(config: Config): Promise<FileStorage> {
  if (config.storage.kind === 's3') {
    const { S3FileStorage } = await import('./s3.js');
    return new S3FileStorage(config.storage.s3);
  }
  return new LocalFileStorage(path.join(config.dataDir, 'files'));
}

import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat as statFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { assertFileKey, contentTypeOfKey, fileKeyFor, isFileKey, type FileStorage, type ListedFile, type StoredFile } from './types.js';

export interface S3StorageOptions {
  bucket: string;
  /** Prepended to every key, so one bucket can hold several deployments. */
  prefix: string;
  region: string;
  /** An S3-compatible store (MinIO, R2, OSS, s3rver); unset: AWS. */
  endpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Where streamed uploads are spooled while their hash (their key) is computed. */
  spoolDir: string;
}


function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** The port's promise: a key that is not stored rejects with code ENOENT, as on local disk. */
function missing(key: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`file ${key} is not in the store`);
  err.code = 'ENOENT';
  return err;
}

/**
 * Files in an S3-compatible bucket, under the same content-addressed keys as on local disk, so
 * every API and worker process of a deployment sees the same files without a shared volume.
 * Objects are private; clients still get them through the signed `/api/v1/files` links.
 */
export class S3FileStorage implements FileStorage {
  private readonly client: S3Client;

  constructor(private readonly options: S3StorageOptions) {
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // Checksums only where S3 requires them: many S3-compatible stores reject the SDK's
      // default streaming trailer checksums, and SHA-256 is already the object's name.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
      maxAttempts: 3,
    });
  }

  private objectKey(key: string): string {
    assertFileKey(key);
    return `${this.options.prefix}${key}`;
  }

  async put(data: Buffer, opts: { contentType: string; extension: string }): Promise<StoredFile> {
    const key = fileKeyFor(createHash('sha256').update(data).digest('hex'), opts.extension);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key), Body: data, ContentType: contentTypeOfKey(key), ContentLength: data.length }),
    );
    return { key, size: data.length };
  }

  async putStream(data: Readable, opts: { contentType: string; extension: string }): Promise<StoredFile> {
    // The key is the content's hash, known only at the end: spool to disk (not memory: packages
    // can be hundreds of MB), then upload once with a known length.
    await mkdir(this.options.spoolDir, { recursive: true });
    const spool = path.join(this.options.spoolDir, `${randomBytes(12).toString('hex')}.part`);
    const hash = createHash('sha256');
    const tap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    try {
      await pipeline(data, tap, createWriteStream(spool, { flags: 'wx', mode: 0o600 }));
      const key = fileKeyFor(hash.digest('hex'), opts.extension);
      const { size } = await statFile(spool);
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.options.bucket,
          Key: this.objectKey(key),
          Body: createReadStream(spool),
          ContentType: contentTypeOfKey(key),
          ContentLength: size,
        }),
      );
      return { key, size };
    } finally {
      await rm(spool, { force: true });
    }
  }

  private async get(key: string, range?: { start: number; end: number }) {
    try {
      return await this.client.send(
        new GetObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
    } catch (err) {
      if (isMissing(err)) throw missing(key);
      throw err;
    }
  }

  async read(key: string): Promise<Buffer> {
    const object = await this.get(key);
    return Buffer.from(await object.Body!.transformToByteArray());
  }

  async createReadStream(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const object = await this.get(key, range);
    // In Node the SDK's body is the HTTP response itself: a Readable, streamed as it arrives.
    return object.Body as Readable;
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
      return { size: head.ContentLength ?? 0 };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async *list(): AsyncIterable<ListedFile> {
    const { bucket, prefix } = this.options;
    for await (const page of paginateListObjectsV2({ client: this.client, pageSize: 1000 }, { Bucket: bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(prefix.length) ?? '';
        // Only our own keys: the bucket (or the prefix) may hold other things, never ours to touch.
        if (isFileKey(key) && object.LastModified) yield { key, writtenAt: object.LastModified };
      }
    }
  }

  async delete(key: string, opts: { writtenBefore?: Date } = {}): Promise<boolean> {
    const objectKey = this.objectKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: objectKey }));
      // S3 has no delete conditional on age: this check and the delete are two requests apart.
      if (opts.writtenBefore && (!head.LastModified || head.LastModified >= opts.writtenBefore)) return false;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: objectKey }));
    return true;
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
  }
}

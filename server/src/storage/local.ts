import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, constants, mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { assertFileKey, fileKeyFor, isFileKey, type FileStorage, type ListedFile, type StoredFile } from './types.js';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Files on local disk under `<root>/<first two hex>/<key>`. Keys are the SHA-256 of the content
 * plus an extension, so identical uploads share one file and a key can never name a path
 * outside the root (assertFileKey allows hex and one known extension, nothing else).
 * Writes go to a temp file in the same directory and are renamed into place: a reader never
 * sees half a file, and a crash leaves only a temp file behind.
 */
export class LocalFileStorage implements FileStorage {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    assertFileKey(key);
    return path.join(this.root, key.slice(0, 2), key);
  }

  private tempPath(): string {
    return path.join(this.root, 'tmp', `${randomBytes(12).toString('hex')}.part`);
  }

  private async commit(temp: string, key: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(temp, target);
  }

  async put(data: Buffer, opts: { contentType: string; extension: string }): Promise<StoredFile> {
    const key = fileKeyFor(createHash('sha256').update(data).digest('hex'), opts.extension);
    const temp = this.tempPath();
    await mkdir(path.dirname(temp), { recursive: true });
    try {
      await writeFile(temp, data, { flag: 'wx', mode: 0o600 });
      await this.commit(temp, key);
    } finally {
      await rm(temp, { force: true });
    }
    return { key, size: data.length };
  }

  async putStream(data: Readable, opts: { contentType: string; extension: string }): Promise<StoredFile> {
    const temp = this.tempPath();
    await mkdir(path.dirname(temp), { recursive: true });
    const hash = createHash('sha256');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        size += chunk.length;
        cb(null, chunk);
      },
    });
    try {
      await pipeline(data, tap, createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
      const key = fileKeyFor(hash.digest('hex'), opts.extension);
      await this.commit(temp, key);
      return { key, size };
    } finally {
      await rm(temp, { force: true });
    }
  }

  async read(key: string): Promise<Buffer> {
    return readFile(this.pathOf(key));
  }

  async createReadStream(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const file = this.pathOf(key);
    // Fail here (ENOENT) rather than later inside the stream, so callers can answer 404.
    await stat(file);
    return createReadStream(file, range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const s = await stat(this.pathOf(key));
      return { size: s.size };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async *list(): AsyncIterable<ListedFile> {
    for (const shard of await this.entries(this.root)) {
      if (!/^[a-f0-9]{2}$/.test(shard)) continue;
      for (const key of await this.entries(path.join(this.root, shard))) {
        if (!isFileKey(key) || !key.startsWith(shard)) continue;
        try {
          yield { key, writtenAt: (await stat(path.join(this.root, shard, key))).mtime };
        } catch (err) {
          if (!isMissing(err)) throw err;
        }
      }
    }
  }

  private async entries(dir: string): Promise<string[]> {
    try {
      return await readdir(dir);
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
  }

  async delete(key: string, opts: { writtenBefore?: Date } = {}): Promise<boolean> {
    const file = this.pathOf(key);
    try {
      if (!opts.writtenBefore) {
        await unlink(file);
        return true;
      }
      // Moved aside first and judged there: a re-upload that landed before the move is what
      // was moved and goes back; one after it finds the path free. Neither loses its file.
      const aside = this.tempPath();
      await mkdir(path.dirname(aside), { recursive: true });
      await rename(file, aside);
      if ((await stat(aside)).mtime >= opts.writtenBefore) {
        await rename(aside, file);
        return false;
      }
      await rm(aside, { force: true });
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await access(this.root, constants.W_OK);
  }
}

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import { describe, expect, it } from 'vitest';
import { lazyZip, type LazyZipEntry } from '../../src/zip/lazy-zip.js';
import { readZip } from './zip.js';

async function collect(entries: LazyZipEntry[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of lazyZip(entries, { mtime: new Date('2026-11-22T08:30:00Z') }).output) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const hasUnzip = spawnSync('unzip', ['-v'], { stdio: 'ignore' }).status === 0;

describe('lazyZip', () => {
  const text = Buffer.from('清爽一夏☀️\n\n正文'.repeat(50), 'utf8');
  const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 251));
  const entries: LazyZipEntry[] = [
    { name: 'note_01_A/note.txt', compress: true, produce: async () => text },
    { name: 'note_01_A/01_封面.jpg', compress: false, produce: async () => binary },
    { name: 'empty.txt', compress: true, produce: async () => Buffer.alloc(0) },
  ];

  it('writes entries an independent reader gets back byte for byte, names flagged UTF-8, text deflated, CRC-32 right', async () => {
    const zip = await collect(entries);
    const read = await readZip(zip);
    expect(read.map((e) => e.name)).toEqual(entries.map((e) => e.name));
    expect(read[0]!.data.equals(text)).toBe(true);
    expect(read[1]!.data.equals(binary)).toBe(true);
    expect(read[2]!.data.length).toBe(0);
    for (const e of read) expect(e.flags & 0x800, e.name).toBe(0x800);
    // The deflated text is smaller than the text; the image is stored as it is.
    expect(zip.length).toBeLessThan(text.length + binary.length);
    const crcs = await centralCrcs(zip);
    expect(crcs).toEqual([crc32(text), crc32(binary), 0]);
  });

  it('yields the same bytes for the same content', async () => {
    expect((await collect(entries)).equals(await collect(entries))).toBe(true);
  });

  it.skipIf(!hasUnzip)('passes unzip -t (every entry CRC-checked by Info-ZIP)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cps-zip-'));
    try {
      const file = path.join(dir, 'a.zip');
      writeFileSync(file, await collect(entries));
      const result = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
      expect(result.stdout).toContain('No errors detected');
      expect(result.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports the first entry that fails and ends the output without producing the rest', async () => {
    let laterProduced = 0;
    const zip = lazyZip(
      [
        { name: 'a.txt', compress: true, produce: async () => Buffer.from('a') },
        { name: 'b.jpg', compress: false, produce: async () => Promise.reject(new Error('image missing')) },
        ...Array.from({ length: 5 }, (_, i) => ({ name: `c${i}.txt`, compress: true, produce: async () => (laterProduced++, Buffer.from('c')) })),
      ],
      { mtime: new Date() },
    );
    await expect(pipeline(zip.output, new PassThrough().resume())).rejects.toThrow();
    expect(zip.failure()?.message).toBe('image missing');
    // At most the one entry read ahead of the failing one.
    expect(laterProduced).toBeLessThanOrEqual(1);
  });

  it('writes Zip64 records once the archive passes 4 GiB, and a reader finds every entry where it is', async () => {
    // 17 entries of 256 MiB: the last ones start beyond 4 GiB. The data is one shared buffer, so the
    // sink keeps only the headers and notes where each data chunk went.
    const block = Buffer.alloc(256 * 1024 * 1024, 0x5a);
    const count = 17;
    const zip = lazyZip(
      Array.from({ length: count }, (_, i) => ({ name: `big/${String(i).padStart(2, '0')}.bin`, compress: false, produce: async () => block })),
      { mtime: new Date('2026-11-22T08:30:00Z') },
    );
    const sparse = new SparseFile(block);
    await pipeline(zip.output, sparse.writable());
    expect(sparse.size).toBeGreaterThan(2 ** 32);

    const read = await new Promise<yauzl.Entry[]>((resolve, reject) => {
      yauzl.fromRandomAccessReader(sparse.reader(), sparse.size, { lazyEntries: true }, (err, file) => {
        if (err || !file) return reject(err ?? new Error('no zip'));
        const found: yauzl.Entry[] = [];
        file.on('entry', (entry: yauzl.Entry) => {
          found.push(entry);
          file.readEntry();
        });
        file.on('end', () => resolve(found));
        file.on('error', reject);
        file.readEntry();
      });
    });
    expect(read).toHaveLength(count);
    expect(read.at(-1)!.fileName).toBe('big/16.bin');
    expect(read.at(-1)!.relativeOffsetOfLocalHeader).toBeGreaterThan(2 ** 32);
    expect(read.every((e) => e.uncompressedSize === block.length && e.crc32 === crc32(block))).toBe(true);
    // The last entry's local header, found through its Zip64 offset, leads to its data.
    const tail = await sparse.range(read.at(-1)!.relativeOffsetOfLocalHeader, read.at(-1)!.relativeOffsetOfLocalHeader + 4);
    expect(tail.readUInt32LE(0)).toBe(0x04034b50);
  }, 120_000);
});

/** The CRC-32 of each entry as the central directory records it. */
function centralCrcs(zip: Buffer): Promise<number[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err ?? new Error('no zip'));
      const crcs: number[] = [];
      file.on('entry', (entry: yauzl.Entry) => {
        crcs.push(entry.crc32);
        file.readEntry();
      });
      file.on('end', () => resolve(crcs));
      file.on('error', reject);
      file.readEntry();
    });
  });
}

/** A zip kept as its small chunks plus the positions of the chunks that are `shared` itself. */
class SparseFile {
  size = 0;
  private readonly pieces: Array<{ at: number; bytes: Buffer }> = [];
  constructor(private readonly shared: Buffer) {}

  writable(): Writable {
    return new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        this.pieces.push({ at: this.size, bytes: chunk === this.shared ? this.shared : Buffer.from(chunk) });
        this.size += chunk.length;
        cb();
      },
    });
  }

  async range(start: number, end: number): Promise<Buffer> {
    const out = Buffer.alloc(end - start);
    for (const piece of this.pieces) {
      const from = Math.max(start, piece.at);
      const to = Math.min(end, piece.at + piece.bytes.length);
      if (from < to) piece.bytes.copy(out, from - start, from - piece.at, to - piece.at);
    }
    return out;
  }

  reader(): yauzl.RandomAccessReader {
    // yauzl's class is concrete at run time; its typings declare it abstract.
    const Reader = yauzl.RandomAccessReader as unknown as new () => yauzl.RandomAccessReader;
    const reader = new Reader();
    (reader as unknown as { _readStreamForRange: (s: number, e: number) => PassThrough })._readStreamForRange = (start, end) => {
      const stream = new PassThrough();
      this.range(start, end).then((bytes) => stream.end(bytes), (err: Error) => stream.destroy(err));
      return stream;
    };
    return reader;
  }
}

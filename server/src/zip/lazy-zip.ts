import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { crc32, deflateRaw } from 'node:zlib';

/**
 * What delivered archives are made of (task delivery packages and fission downloads alike): the
 * streamed zip writer and the note text file.
 */

/** One file of a zip, produced only when the writer reaches it. */
export interface LazyZipEntry {
  name: string;
  /** Deflate text; images are already compressed. */
  compress: boolean;
  /** The bytes, or the bytes with their CRC-32 when the producer knows it (the same file packed before). */
  produce: () => Promise<Buffer | { data: Buffer; crc32: number }>;
}

export interface LazyZip {
  /** The archive, to be piped into storage or a response. */
  output: Readable;
  /** The first entry that failed: it destroyed `output`, and is the error to report. */
  failure(): Error | undefined;
  /** Stops producing entries (the consumer gave up). */
  abort(): void;
}

const deflate = promisify(deflateRaw);
const UTF8_NAMES = 0x0800;
const MADE_BY_UNIX = (3 << 8) | 63;
const REGULAR_FILE = (0o100644 << 16) >>> 0;
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;

/** MS-DOS date and time fields (local time, two-second steps), as every zip tool writes them. */
function dosDateTime(date: Date): { time: number; date: number } {
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    date: ((Math.min(Math.max(date.getFullYear(), 1980), 2107) - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

/** Info-ZIP "UT" extra field: the modification time in UTC seconds, which extractors prefer. */
function extendedTimestamp(date: Date): Buffer {
  const field = Buffer.alloc(9);
  field.writeUInt16LE(0x5455, 0);
  field.writeUInt16LE(5, 2);
  field.writeUInt8(1, 4);
  field.writeUInt32LE(Math.max(0, Math.floor(date.getTime() / 1000)) >>> 0, 5);
  return field;
}

interface Written {
  name: Buffer;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

/**
 * A streamed zip (delivery packages, fission downloads). Each entry is produced when the
 * archive reaches it, with the next one read meanwhile, so memory holds two entries however
 * large the archive, and the consumer pulls with backpressure. Sizes and CRC-32 are known before
 * an entry's header is written (its bytes are at hand), so there are no data descriptors, and the
 * CRC is Node's native zlib.crc32: yazl, the writer used before, computes it in JavaScript on
 * every byte and has no way to be handed one (docs/decisions.md, "delivery zip"). Entry names are
 * flagged UTF-8; Zip64 records appear only when the archive passes 4 GiB. Entry times are
 * `mtime`, so the same content always yields the same bytes.
 */
export function lazyZip(entries: LazyZipEntry[], opts: { mtime: Date; signal?: AbortSignal }): LazyZip {
  let aborted = false;
  let failure: Error | undefined;
  const stamp = dosDateTime(opts.mtime);
  const timestamp = extendedTimestamp(opts.mtime);

  const prepare = async (entry: LazyZipEntry) => {
    if (aborted || opts.signal?.aborted) throw new Error('zip aborted');
    const produced = await entry.produce();
    const data = Buffer.isBuffer(produced) ? produced : produced.data;
    const stored = entry.compress ? await deflate(data) : data;
    if (stored.length >= MAX32 || data.length >= MAX32) throw new Error(`zip entry ${entry.name} is 4 GiB or larger`);
    return { data, stored, crc: Buffer.isBuffer(produced) ? crc32(data) : produced.crc32 };
  };
  const start = (index: number) => {
    const entry = entries[index];
    if (!entry) return undefined;
    const prepared = prepare(entry);
    // Awaited in turn below; until then a failure must not count as unhandled.
    prepared.catch(() => {});
    return prepared;
  };

  async function* records(): AsyncGenerator<Buffer> {
    const written: Written[] = [];
    let offset = 0;
    let next = start(0);
    for (let index = 0; index < entries.length; index++) {
      const { data, stored, crc } = await next!;
      next = start(index + 1);
      const entry = entries[index]!;
      const name = Buffer.from(entry.name, 'utf8');
      const record: Written = {
        name,
        method: entry.compress ? 8 : 0,
        crc,
        compressedSize: stored.length,
        size: data.length,
        offset,
      };
      const header = Buffer.alloc(30);
      header.writeUInt32LE(0x04034b50, 0);
      header.writeUInt16LE(20, 4);
      header.writeUInt16LE(UTF8_NAMES, 6);
      header.writeUInt16LE(record.method, 8);
      header.writeUInt16LE(stamp.time, 10);
      header.writeUInt16LE(stamp.date, 12);
      header.writeUInt32LE(record.crc, 14);
      header.writeUInt32LE(record.compressedSize, 18);
      header.writeUInt32LE(record.size, 22);
      header.writeUInt16LE(name.length, 26);
      header.writeUInt16LE(timestamp.length, 28);
      yield Buffer.concat([header, name, timestamp]);
      yield stored;
      written.push(record);
      offset += header.length + name.length + timestamp.length + stored.length;
    }
    const directory = Buffer.concat(written.flatMap(centralRecord));
    yield Buffer.concat([directory, ...endRecords(written.length, directory.length, offset)]);
  }

  function centralRecord(record: Written): Buffer[] {
    const farOffset = record.offset >= MAX32;
    const zip64 = Buffer.alloc(farOffset ? 12 : 0);
    if (farOffset) {
      zip64.writeUInt16LE(0x0001, 0);
      zip64.writeUInt16LE(8, 2);
      zip64.writeBigUInt64LE(BigInt(record.offset), 4);
    }
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(MADE_BY_UNIX, 4);
    header.writeUInt16LE(farOffset ? 45 : 20, 6);
    header.writeUInt16LE(UTF8_NAMES, 8);
    header.writeUInt16LE(record.method, 10);
    header.writeUInt16LE(stamp.time, 12);
    header.writeUInt16LE(stamp.date, 14);
    header.writeUInt32LE(record.crc, 16);
    header.writeUInt32LE(record.compressedSize, 20);
    header.writeUInt32LE(record.size, 24);
    header.writeUInt16LE(record.name.length, 28);
    header.writeUInt16LE(zip64.length + timestamp.length, 30);
    header.writeUInt32LE(REGULAR_FILE, 38);
    header.writeUInt32LE(farOffset ? MAX32 : record.offset, 42);
    return [header, record.name, zip64, timestamp];
  }

  const output = new Readable({
    read() {
      void pump();
    },
  });
  const chunks = records();
  let pumping = false;
  async function pump() {
    if (pumping) return;
    pumping = true;
    try {
      for (;;) {
        const { value, done } = await chunks.next();
        if (done) {
          output.push(null);
          return;
        }
        if (!output.push(value)) return;
      }
    } catch (err) {
      // Reported through failure(): the output may have no error listener yet.
      failure ??= err as Error;
      output.destroy();
    } finally {
      pumping = false;
    }
  }
  output.once('close', () => {
    aborted = true;
  });
  return {
    output,
    failure: () => failure,
    abort: () => {
      aborted = true;
    },
  };
}

/**
 * The end of central directory record, preceded by the Zip64 end record and its locator when
 * the entry count, the directory's size or its offset no longer fit the classic fields.
 */
function endRecords(count: number, directorySize: number, directoryOffset: number): Buffer[] {
  const needs64 = count >= MAX16 || directorySize >= MAX32 || directoryOffset >= MAX32;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(count, MAX16), 8);
  end.writeUInt16LE(Math.min(count, MAX16), 10);
  end.writeUInt32LE(Math.min(directorySize, MAX32), 12);
  end.writeUInt32LE(Math.min(directoryOffset, MAX32), 16);
  if (!needs64) return [end];
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(MADE_BY_UNIX, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(directorySize), 40);
  record.writeBigUInt64LE(BigInt(directoryOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(directoryOffset + directorySize), 8);
  locator.writeUInt32LE(1, 16);
  return [record, locator, end];
}

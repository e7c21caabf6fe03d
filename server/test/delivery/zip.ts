import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';

export interface ZipEntry {
  name: string;
  /** General purpose bit flag; bit 11 says the name is UTF-8. */
  flags: number;
  data: Buffer;
}

/**
 * Every entry of a zip, read with an independent implementation (yauzl), each entry's bytes
 * checked against the CRC-32 its directory record states (yauzl itself does not check it).
 */
export function readZip(buffer: Buffer): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, decodeStrings: true, strictFileNames: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const entries: ZipEntry[] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            const data = Buffer.concat(chunks);
            if (crc32(data) !== entry.crc32) return reject(new Error(`${entry.fileName}: CRC-32 ${crc32(data)} is not the recorded ${entry.crc32}`));
            entries.push({ name: entry.fileName, flags: entry.generalPurposeBitFlag, data });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

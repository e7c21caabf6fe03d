import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';

/**
 * What delivered archives are made of (task delivery packages and fission downloads alike): the
 * streamed zip writer and the note text file.
 */

/** One file of a zip, produced only when the writer reaches it. */
export interface LazyZipEntry {
  name: string;
  /** Deflate text; images are already compressed. */
  compress: boolean;
  produce: () => Promise<Buffer>;
}

export interface LazyZip {
  /** The archive, to be piped into storage or a response. */
  output: Readable;
  /** The first entry that failed: it destroyed `output`, and is the error to report. */
  failure(): Error | undefined;
  /** Stops producing entries (the consumer gave up). */
  abort(): void;
}

/**
 * A streamed zip (delivery packages, fission downloads): entries are produced one at a time when
 * yazl asks for them (addReadStreamLazy), and the consumer pulls the archive with backpressure,
 * so memory holds one entry at a time however large the archive. Entry times are `mtime`, so the
 * same content always yields the same bytes.
 */
export function lazyZip(entries: LazyZipEntry[], opts: { mtime: Date; signal?: AbortSignal }): LazyZip {
  const zip = new ZipFile();
  // yazl's output is a PassThrough; its typings only promise a ReadableStream.
  const output = zip.outputStream as Readable;
  let aborted = false;
  // yazl reports a failed entry on the ZipFile, not on its output: without ending the output,
  // the consumer would wait forever for the rest of the archive. The output is destroyed without
  // the error (it may have no listener yet); failure() hands the error to whoever reports it.
  let zipError: Error | undefined;
  zip.on('error', (err: Error) => {
    zipError ??= err;
    output.destroy();
  });
  for (const entry of entries) {
    zip.addReadStreamLazy(entry.name, { mtime: opts.mtime, compress: entry.compress }, (cb) => {
      if (aborted || opts.signal?.aborted) return cb(new Error('zip aborted'), Readable.from([]));
      entry.produce().then(
        (data) => cb(null, Readable.from([data])),
        (err: Error) => cb(err, Readable.from([])),
      );
    });
  }
  zip.end();
  return {
    output,
    failure: () => zipError,
    abort: () => {
      aborted = true;
    },
  };
}

/** `note.txt` of a delivered note: title, body and tags as they are published. */
export function noteText(text: { title: string; content: string; tags: string[] }): string {
  const tags = text.tags.map((t) => `#${t.replace(/^#/, '')}`).join(' ');
  return `${text.title}\n\n${text.content}\n\n${tags}\n`;
}

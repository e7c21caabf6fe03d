import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { App } from './module.js';
import { AppError, fail } from './errors.js';

/** 10 MB as contract-decisions §6 defines it. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/**
 * Registers upload routes in a scope of their own, with multipart parsing limited to one file
 * of at most 10 MB and a few small fields; a larger file is a 413 before it is buffered whole.
 * The rest of the API keeps refusing multipart bodies.
 */
export async function uploadScope(app: App, routes: (scope: App) => Promise<void> | void): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 8, fieldSize: 64 * 1024, parts: 10, headerPairs: 100 },
    });
    // Answers given before the body was read (a bad path id, an unknown product) drain it too.
    scope.addHook('onSend', async (request, _reply, payload) => {
      discardRest(request);
      return payload;
    });
    await routes(scope as App);
  });
}

export interface Upload {
  file: Buffer | undefined;
  fields: Record<string, string>;
}

/** Reads a multipart body: the one file under `fileField` and the text fields, in any order. */
export async function readUpload(request: FastifyRequest, fileField: string): Promise<Upload> {
  const fields: Record<string, string> = {};
  let file: Buffer | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== fileField) throw fail('upload.unexpected_file', { field: part.fieldname, expected: fileField });
        file = await part.toBuffer();
      } else {
        // busboy cuts an over-long field silently; a cut text must not be stored as if whole.
        if (part.valueTruncated) throw fail('upload.field_too_long', { field: part.fieldname });
        const value = typeof part.value === 'string' ? part.value : String(part.value);
        // The rule every JSON field gets from the validation layer (http/validation.ts).
        if (value.includes('\u0000')) throw fail('upload.field_nul', { field: part.fieldname });
        fields[part.fieldname] = value;
      }
    }
  } catch (err) {
    discardRest(request);
    // busboy's parse errors are plain Errors, and a body that ends inside a part closes the
    // part's stream early: a malformed body, not a bug.
    const malformed =
      err instanceof Error &&
      !(err instanceof AppError) &&
      ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' ||
        (!('code' in err) && /^(Multipart: |Unexpected end of|Malformed|Part terminated early)/.test(err.message)));
    if (malformed) throw fail('upload.malformed', { detail: err.message });
    throw err;
  }
  return { file, fields };
}

/**
 * A refused upload stops being parsed mid-body. Unread, the rest would make Node reset the
 * connection and the client would never see our answer; so it is read and dropped, up to a
 * bound past which the connection is cut after all.
 */
const draining = new WeakSet<object>();

function discardRest(request: FastifyRequest) {
  const raw = request.raw;
  if (raw.complete || draining.has(raw)) return;
  draining.add(raw);
  let budget = 2 * MAX_UPLOAD_BYTES;
  // Away from the parser, which stalls on the part it was still handing out.
  raw.unpipe();
  raw.on('data', (chunk: Buffer) => {
    budget -= chunk.length;
    if (budget < 0) raw.destroy();
  });
  raw.resume();
}

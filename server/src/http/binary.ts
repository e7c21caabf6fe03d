import { Type } from 'typebox';

/** A file download (stream, buffer or pre-serialised text): documented as binary, never re-serialised. */
export const BinaryFile = Type.Unsafe<unknown>({ type: 'string', format: 'binary' });

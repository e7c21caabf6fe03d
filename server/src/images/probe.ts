import sharp from 'sharp';

export type ImageMime = 'image/jpeg' | 'image/png' | 'image/webp';

export interface ProbedImage {
  mime: ImageMime;
  /** File extension without the dot, for storage keys and package file names. */
  extension: 'jpg' | 'png' | 'webp';
  width: number;
  height: number;
}

/** Decoding bombs (a tiny file claiming gigapixels) are refused before any pixel is allocated. */
export const MAX_INPUT_PIXELS = 60_000_000;

const EXTENSION: Record<ImageMime, ProbedImage['extension']> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };
/** sharp's name of each format, to check that the decoder agrees with the magic bytes. */
export const SHARP_FORMAT: Record<ImageMime, string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };

/** The format by the file's leading bytes alone; names and Content-Type headers are not trusted. */
export function sniffImageMime(buffer: Buffer): ImageMime | undefined {
  if (buffer.length >= 3 && buffer[0] === 0xff && buffer[1] === 0xd8 && buffer[2] === 0xff) return 'image/jpeg';
  if (buffer.length >= 8 && buffer.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (buffer.length >= 12 && buffer.toString('latin1', 0, 4) === 'RIFF' && buffer.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * A header declaring more than MAX_INPUT_PIXELS: a decompression bomb, or a photo too large to
 * process. Not "not an image": the caller says what it is (uploads answer 413).
 */
export class ImageTooLargeError extends Error {
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    super(`image dimensions too large: ${width}×${height} pixels, at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels`);
    this.name = 'ImageTooLargeError';
  }
}

/**
 * A JPEG, PNG or WebP by its magic bytes that also decodes completely (a renamed or truncated
 * file, or one whose body is another format, is refused); undefined otherwise. Used for uploads
 * and for every image a provider returns. Throws ImageTooLargeError for a header declaring more
 * pixels than we decode, before any pixel is allocated.
 */
export async function probeImage(buffer: Buffer): Promise<ProbedImage | undefined> {
  const mime = sniffImageMime(buffer);
  if (!mime) return undefined;
  let meta: sharp.Metadata;
  try {
    // Headers only, so no pixel limit is needed to read what the header declares (sharp refuses
    // even the header of an image over its limit, without saying how large it claims to be).
    meta = await sharp(buffer, { limitInputPixels: false }).metadata();
  } catch {
    return undefined;
  }
  if (meta.format !== SHARP_FORMAT[mime] || !meta.width || !meta.height) return undefined;
  if (meta.width * meta.height > MAX_INPUT_PIXELS) throw new ImageTooLargeError(meta.width, meta.height);
  try {
    // stats() decodes every pixel, which is what catches a valid header in front of garbage.
    await sharp(buffer, { failOn: 'truncated', limitInputPixels: MAX_INPUT_PIXELS }).stats();
    return { mime, extension: EXTENSION[mime], width: meta.width, height: meta.height };
  } catch {
    return undefined;
  }
}

import sharp from 'sharp';
import { ImageTooLargeError, MAX_INPUT_PIXELS, probeImage, type ProbedImage } from './probe.js';
import { fail } from '../http/errors.js';

export interface CleanImage {
  data: Buffer;
  mime: ProbedImage['mime'];
  extension: ProbedImage['extension'];
  width: number;
  height: number;
}

export const THUMB_SIZE = 320;

/**
 * An uploaded image as it will be stored: checked by its bytes (magic number and a full decode;
 * the file name and Content-Type are ignored), turned upright by its EXIF orientation, then
 * re-encoded in its own format. Re-encoding drops every metadata block (EXIF with GPS position,
 * camera serials, XMP, comments) and anything appended after the image data.
 */
export async function cleanUploadedImage(data: Buffer): Promise<CleanImage> {
  const probed = await probeImage(data).catch((err: unknown) => {
    // A decompression bomb is an image, only too large to take: 413 (docs/decisions.md).
    if (err instanceof ImageTooLargeError) throw fail('upload.image_too_large', { width: err.width, height: err.height, megapixels: MAX_INPUT_PIXELS / 1_000_000 });
    throw err;
  });
  if (!probed) throw fail('upload.not_image');
  const upright = sharp(data, { limitInputPixels: MAX_INPUT_PIXELS }).rotate();
  const encoded =
    probed.extension === 'png'
      ? upright.png({ compressionLevel: 9 })
      : probed.extension === 'jpg'
        ? upright.jpeg({ quality: 90, mozjpeg: true })
        : upright.webp({ quality: 90 });
  const { data: clean, info } = await encoded.toBuffer({ resolveWithObject: true });
  return { data: clean, mime: probed.mime, extension: probed.extension, width: info.width, height: info.height };
}

/** A small WebP preview for lists. */
export function thumbnailOf(image: Buffer): Promise<Buffer> {
  return sharp(image).resize(THUMB_SIZE, THUMB_SIZE, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer();
}

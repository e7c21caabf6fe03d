import sharp from 'sharp';
import { MAX_INPUT_PIXELS } from './probe.js';

export const DEFAULT_WIDTH = 1080;
export const DEFAULT_HEIGHT = 1440;

export interface NormalizedImage {
  data: Buffer;
  mime: 'image/jpeg' | 'image/png';
  width: number;
  height: number;
}

export interface NormalizeOptions {
  width?: number;
  height?: number;
  /** JPEG for photos (default); PNG keeps rendered cards and text edges lossless. */
  format?: 'jpeg' | 'png';
}

/**
 * Any decodable image → exactly width×height (3:4, 1080×1440 by default): turned upright by its
 * EXIF orientation, cropped to the ratio around the most salient region, resized, converted to
 * sRGB and re-encoded. sharp writes no metadata unless asked, so EXIF (camera, GPS), XMP, the
 * ICC profile and C2PA/JUMBF manifests (provenance labels of AI images) are all gone.
 */
export async function normalizeImage(input: Buffer, opts: NormalizeOptions = {}): Promise<NormalizedImage> {
  const width = opts.width ?? DEFAULT_WIDTH;
  const height = opts.height ?? DEFAULT_HEIGHT;
  const pipeline = sharp(input, { failOn: 'truncated', limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize(width, height, { fit: 'cover', position: sharp.strategy.attention })
    .toColourspace('srgb')
    .flatten({ background: '#ffffff' });
  const data =
    opts.format === 'png'
      ? await pipeline.png({ compressionLevel: 8 }).toBuffer()
      : await pipeline.jpeg({ quality: 90, mozjpeg: true, chromaSubsampling: '4:4:4' }).toBuffer();
  return { data, mime: opts.format === 'png' ? 'image/png' : 'image/jpeg', width, height };
}

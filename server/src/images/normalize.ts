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
  return encode(await normalizedPipeline(input, width, height), { width, height, format: opts.format });
}

/** The decoding half of normalizeImage, for callers that draw on the image before encoding. */
export async function normalizedPipeline(input: Buffer, width: number, height: number): Promise<sharp.Sharp> {
  const source = sharp(input, { failOn: 'truncated', limitInputPixels: MAX_INPUT_PIXELS });
  const meta = await source.metadata();
  // EXIF orientations 5-8 swap width and height once applied.
  const [w, h] = (meta.orientation ?? 1) >= 5 ? [meta.height, meta.width] : [meta.width, meta.height];
  const pipeline = source.rotate().toColourspace('srgb').flatten({ background: '#ffffff' });
  // Salient-region cropping costs a saliency pass: only when there is something to crop.
  if (w !== width || h !== height) pipeline.resize(width, height, { fit: 'cover', position: sharp.strategy.attention });
  return pipeline;
}

/** The encoding half: no metadata is written (sharp keeps none unless asked). */
export async function encode(pipeline: sharp.Sharp, opts: { width: number; height: number; format?: 'jpeg' | 'png' }): Promise<NormalizedImage> {
  const data =
    opts.format === 'png'
      ? await pipeline.png({ compressionLevel: 6 }).toBuffer()
      : await pipeline.jpeg({ quality: 90, chromaSubsampling: '4:4:4' }).toBuffer();
  return { data, mime: opts.format === 'png' ? 'image/png' : 'image/jpeg', width: opts.width, height: opts.height };
}

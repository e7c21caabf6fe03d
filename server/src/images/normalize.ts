import sharp from 'sharp';
import { labelledXmp, type AigcLabel } from './aigc.js';
import { MAX_INPUT_PIXELS, SHARP_FORMAT, sniffImageMime } from './probe.js';

export const DEFAULT_WIDTH = 1080;
export const DEFAULT_HEIGHT = 1440;
/**
 * Plain baseline JPEG with 4:2:0 chroma and the standard Huffman tables: at 88 the drawn text
 * edges look the same as at 4:4:4; a 1080×1440 encode takes 4 ms CPU instead of 22 (4:4:4 with
 * optimised tables) for a file a few per cent larger; mozjpeg's trellis would take ~10× as long.
 */
export const JPEG_QUALITY = 88;

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
  /**
   * A model drew the image: its XMP (the provider's own labels) is kept and the GB 45438 label
   * written into it (contract-decisions §12). Without it nothing of the input's metadata stays.
   */
  aigc?: AigcLabel;
  /**
   * How an image of another ratio becomes 3:4 (a person's upload): `crop` keeps a 3:4 window,
   * `focus` (0 to 1, default 0.5) placing it along the axis that is cut (0: left or top);
   * `pad` keeps the whole picture on a `background` of its own (default white). Centre crop
   * without it.
   */
  framing?: Framing;
}

export type Framing = { fit: 'crop'; focus?: number } | { fit: 'pad'; background?: string };

/** The bytes are not a JPEG, PNG or WebP image that decodes (the caller decides what that means). */
export class InvalidImageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidImageError';
  }
}

/**
 * Any JPEG, PNG or WebP → exactly width×height (3:4, 1080×1440 by default): turned upright by
 * its EXIF orientation, centre-cropped to the ratio, resized, converted to sRGB and re-encoded.
 * sharp writes no metadata unless asked, so EXIF (camera, GPS), IPTC, the ICC profile and
 * C2PA/JUMBF manifests are all gone; XMP only where `aigc` says a model drew the image. One
 * decode and one encode: the output is built only from pixels that decoded, so no separate
 * validation pass is needed.
 */
export async function normalizeImage(input: Buffer, opts: NormalizeOptions = {}): Promise<NormalizedImage> {
  const width = opts.width ?? DEFAULT_WIDTH;
  const height = opts.height ?? DEFAULT_HEIGHT;
  const { pipeline, xmp } = await normalizedPipeline(input, width, height, opts.framing);
  return encode(pipeline, { width, height, format: opts.format, xmp: opts.aigc ? labelledXmp(xmp, opts.aigc) : undefined });
}

/** The decoding half of normalizeImage, for callers that draw on the image before encoding; `xmp` is the input's. */
export async function normalizedPipeline(input: Buffer, width: number, height: number, framing?: Framing): Promise<{ pipeline: sharp.Sharp; xmp: string | undefined }> {
  // Only the formats we accept anywhere, by their bytes: sharp would also decode SVG, GIF, TIFF…
  const mime = sniffImageMime(input);
  if (!mime) throw new InvalidImageError('not a JPEG, PNG or WebP image');
  const source = sharp(input, { failOn: 'truncated', limitInputPixels: MAX_INPUT_PIXELS });
  let meta: sharp.Metadata;
  try {
    meta = await source.metadata();
  } catch (err) {
    throw new InvalidImageError('the image cannot be decoded', { cause: err });
  }
  if (meta.format !== SHARP_FORMAT[mime] || !meta.width || !meta.height) throw new InvalidImageError('the image cannot be decoded');
  // EXIF orientations 5-8 swap width and height once applied.
  const [w, h] = (meta.orientation ?? 1) >= 5 ? [meta.height, meta.width] : [meta.width, meta.height];
  const pipeline = source.rotate().toColourspace('srgb').flatten({ background: '#ffffff' });
  // A centre crop: provider images are asked for at 3:4 or the nearest portrait size, so the
  // crop takes a thin strip off the edges; a saliency search costs a sixth to a quarter more CPU.
  if (w !== width || h !== height) {
    if (framing?.fit === 'pad') {
      pipeline.resize(width, height, { fit: 'contain', background: framing.background ?? '#ffffff', kernel: kernelFor(Math.min(width / w, height / h)) });
    } else if (framing?.fit === 'crop' && framing.focus !== undefined) {
      // The cover-size picture, then the window at `focus` along the axis that is too long.
      const scale = Math.max(width / w, height / h);
      const [rw, rh] = [Math.max(width, Math.round(w * scale)), Math.max(height, Math.round(h * scale))];
      const focus = Math.min(1, Math.max(0, framing.focus));
      pipeline.resize(rw, rh, { fit: 'fill', kernel: kernelFor(scale) }).extract({ left: Math.round((rw - width) * focus), top: Math.round((rh - height) * focus), width, height });
    } else {
      pipeline.resize(width, height, { fit: 'cover', position: 'centre', kernel: kernelFor(Math.max(width / w, height / h)) });
    }
  }
  return { pipeline, xmp: meta.xmp?.toString('utf8') };
}

/**
 * Enlarging a little (OpenAI's 1024-wide portrait to 1080 is ×1.05) bilinear looks the same as
 * Lanczos and takes 60% of its CPU (26 vs 42 ms per image with the encode); larger enlargements
 * keep Lanczos' sharpness, and reductions are cheap either way (shrink-on-load does most).
 */
function kernelFor(scale: number): keyof sharp.KernelEnum {
  return scale > 1 && scale <= 1.25 ? 'linear' : 'lanczos3';
}

/**
 * The encoding half: no metadata is written (sharp keeps none unless asked) but the `xmp`
 * packet given. Decoding happens here (sharp is lazy), so a file that is corrupt past its
 * header fails here.
 */
export async function encode(pipeline: sharp.Sharp, opts: { width: number; height: number; format?: 'jpeg' | 'png'; xmp?: string }): Promise<NormalizedImage> {
  if (opts.xmp) pipeline.withXmp(opts.xmp);
  let data: Buffer;
  try {
    data = opts.format === 'png' ? await pipeline.png({ compressionLevel: 6 }).toBuffer() : await pipeline.jpeg({ quality: JPEG_QUALITY, optimiseCoding: false }).toBuffer();
  } catch (err) {
    throw new InvalidImageError('the image cannot be decoded', { cause: err });
  }
  return { data, mime: opts.format === 'png' ? 'image/png' : 'image/jpeg', width: opts.width, height: opts.height };
}

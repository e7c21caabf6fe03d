import { renderSvg, svgTextBlock, wrapBalanced, wrapText } from './fonts.js';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, encode, normalizedPipeline, type NormalizedImage } from './normalize.js';
import { compositeRows, fromRaw } from './raw.js';

export interface OverlayText {
  /** Cover title: large and bold in the top band (hook and main images). */
  title?: string | null;
  /** Short caption on a translucent bar at the bottom. */
  caption?: string | null;
}

/** One band of drawn text: a small SVG and where it goes on the image. */
export interface OverlayLayer {
  svg: string;
  top: number;
  left: number;
}

/**
 * Draws Chinese cover titles and captions onto an image with the bundled font, because image
 * models garble Chinese text. The result is normalised like every output image (3:4 size,
 * re-encoded, no metadata); with nothing to draw it is only normalised. Only the bands that
 * carry text are rendered (a title band is about a third of the image, a caption a sixth), off
 * the event loop while the image decodes, and blended into the rows they cover: one decode,
 * one encode.
 */
export async function overlayText(
  image: Buffer,
  text: OverlayText,
  opts: { width?: number; height?: number; format?: 'jpeg' | 'png' } = {},
): Promise<NormalizedImage> {
  const width = opts.width ?? DEFAULT_WIDTH;
  const height = opts.height ?? DEFAULT_HEIGHT;
  const layers = overlayLayers(width, height, text);
  const pipeline = await normalizedPipeline(image, width, height);
  if (layers.length === 0) return encode(pipeline, { width, height, format: opts.format });
  const [decoded, rendered] = await Promise.all([pipeline.raw().toBuffer({ resolveWithObject: true }), Promise.all(layers.map((layer) => renderSvg(layer.svg)))]);
  const base = { data: decoded.data, width: decoded.info.width, height: decoded.info.height, channels: decoded.info.channels };
  for (const [i, layer] of layers.entries()) await compositeRows(base, { ...rendered[i]!, premultiplied: true }, layer.top, layer.left);
  return encode(fromRaw(base), { width, height, format: opts.format });
}

const svgOf = (width: number, height: number, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`;

/** The transparent text bands for an image of width×height; empty when nothing is drawable. */
export function overlayLayers(width: number, height: number, text: OverlayText): OverlayLayer[] {
  const unit = width / 1080;
  const margin = Math.round(64 * unit);
  const layers: OverlayLayer[] = [];

  const titleSize = Math.round(88 * unit);
  const titleLines = text.title ? wrapBalanced(text.title, width - margin * 2, titleSize, 3) : [];
  if (titleLines.length > 0) {
    const lineHeight = Math.round(titleSize * 1.25);
    const top = Math.round(96 * unit);
    const bandHeight = Math.min(height, top + lineHeight * titleLines.length + Math.round(80 * unit));
    const body =
      `<defs><linearGradient id="tb" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0.55"/><stop offset="1" stop-color="#000" stop-opacity="0"/></linearGradient></defs>` +
      `<rect x="0" y="0" width="${width}" height="${bandHeight}" fill="url(#tb)"/>` +
      svgTextBlock(titleLines, {
        x: margin,
        y: top + titleSize,
        fontSize: titleSize,
        lineHeight,
        weight: 700,
        fill: '#ffffff',
        extra: `stroke="#000000" stroke-opacity="0.35" stroke-width="${Math.max(1, Math.round(3 * unit))}" paint-order="stroke"`,
      });
    layers.push({ svg: svgOf(width, bandHeight, body), top: 0, left: 0 });
  }

  const captionSize = Math.round(46 * unit);
  const captionLines = text.caption ? wrapText(text.caption, width - margin * 2 - Math.round(64 * unit), captionSize, 2) : [];
  if (captionLines.length > 0) {
    const lineHeight = Math.round(captionSize * 1.4);
    const padding = Math.round(32 * unit);
    const boxWidth = width - margin * 2;
    const boxHeight = lineHeight * captionLines.length + padding * 2 - (lineHeight - captionSize);
    const body =
      `<rect x="0" y="0" width="${boxWidth}" height="${boxHeight}" rx="${Math.round(28 * unit)}" fill="#ffffff" fill-opacity="0.88"/>` +
      svgTextBlock(captionLines, {
        x: boxWidth / 2,
        y: padding + Math.round(captionSize * 0.88),
        fontSize: captionSize,
        lineHeight,
        weight: 700,
        fill: '#2b2b2b',
        anchor: 'middle',
      });
    layers.push({ svg: svgOf(boxWidth, boxHeight, body), top: height - margin - boxHeight, left: margin });
  }
  return layers;
}

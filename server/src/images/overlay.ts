import { renderSvg, svgTextBlock, wrapBalanced, wrapText } from './fonts.js';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, encode, normalizedPipeline, type NormalizedImage } from './normalize.js';

export interface OverlayText {
  /** Cover title: large and bold in the top band (hook and main images). */
  title?: string | null;
  /** Short caption on a translucent bar at the bottom. */
  caption?: string | null;
}

/**
 * Draws Chinese cover titles and captions onto an image with the bundled font, because image
 * models garble Chinese text. The result is normalised like every output image (3:4 size,
 * re-encoded, no metadata); with nothing to draw it is only normalised.
 */
export async function overlayText(
  image: Buffer,
  text: OverlayText,
  opts: { width?: number; height?: number; format?: 'jpeg' | 'png' } = {},
): Promise<NormalizedImage> {
  const width = opts.width ?? DEFAULT_WIDTH;
  const height = opts.height ?? DEFAULT_HEIGHT;
  const pipeline = await normalizedPipeline(image, width, height);
  const svg = overlaySvg(width, height, text);
  // sharp composites after the resize, so the whole job is one decode and one encode.
  if (svg) pipeline.composite([{ input: renderSvg(svg), top: 0, left: 0 }]);
  return encode(pipeline, { width, height, format: opts.format });
}

/** The transparent text layer, or undefined when there is nothing drawable. */
export function overlaySvg(width: number, height: number, text: OverlayText): string | undefined {
  const unit = width / 1080;
  const margin = Math.round(64 * unit);
  const parts: string[] = [];

  const titleSize = Math.round(88 * unit);
  const titleLines = text.title ? wrapBalanced(text.title, width - margin * 2, titleSize, 3) : [];
  if (titleLines.length > 0) {
    const lineHeight = Math.round(titleSize * 1.25);
    const top = Math.round(96 * unit);
    const bandHeight = top + lineHeight * titleLines.length + Math.round(80 * unit);
    parts.push(
      `<defs><linearGradient id="tb" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0.55"/><stop offset="1" stop-color="#000" stop-opacity="0"/></linearGradient></defs>`,
      `<rect x="0" y="0" width="${width}" height="${bandHeight}" fill="url(#tb)"/>`,
      svgTextBlock(titleLines, {
        x: margin,
        y: top + titleSize,
        fontSize: titleSize,
        lineHeight,
        weight: 700,
        fill: '#ffffff',
        extra: `stroke="#000000" stroke-opacity="0.35" stroke-width="${Math.max(1, Math.round(3 * unit))}" paint-order="stroke"`,
      }),
    );
  }

  const captionSize = Math.round(46 * unit);
  const captionLines = text.caption ? wrapText(text.caption, width - margin * 2 - Math.round(64 * unit), captionSize, 2) : [];
  if (captionLines.length > 0) {
    const lineHeight = Math.round(captionSize * 1.4);
    const padding = Math.round(32 * unit);
    const boxHeight = lineHeight * captionLines.length + padding * 2 - (lineHeight - captionSize);
    const boxTop = height - margin - boxHeight;
    parts.push(
      `<rect x="${margin}" y="${boxTop}" width="${width - margin * 2}" height="${boxHeight}" rx="${Math.round(28 * unit)}" fill="#ffffff" fill-opacity="0.88"/>`,
      svgTextBlock(captionLines, {
        x: width / 2,
        y: boxTop + padding + Math.round(captionSize * 0.88),
        fontSize: captionSize,
        lineHeight,
        weight: 700,
        fill: '#2b2b2b',
        anchor: 'middle',
      }),
    );
  }

  if (parts.length === 0) return undefined;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}

import type { CoverTemplate } from '../content/cover.js';
import { drawableText, escapeXml, FONT_FAMILY, renderSvg, svgTextBlock, textWidth, wrapBalanced, wrapText } from './fonts.js';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, encode, normalizedPipeline, type NormalizedImage } from './normalize.js';
import { compositeRows, fromRaw } from './raw.js';

/** What to draw, plain data (it crosses to a worker thread as it is). */
export interface OverlayText {
  /** Cover title, drawn large in the upper part in the template's design (hook and main images). */
  title?: string | null;
  /** Short caption on a translucent bar at the bottom. */
  caption?: string | null;
  /** The cover design (content/cover.ts); `band` when absent. */
  template?: CoverTemplate | null;
  /** A phrase of the title drawn highlighted, kept on one line where it fits. */
  highlight?: string | null;
  /** Phrases of the title never broken across lines where they fit one (the product name). */
  keep?: readonly string[];
}

/** One band of drawn text: a small SVG and where it goes on the image (`height` is the SVG's). */
export interface OverlayLayer {
  svg: string;
  top: number;
  left: number;
  height: number;
}

interface Size {
  width: number;
  height: number;
}

/**
 * The share of a cover's height a title block may take, from the top: the subject of a
 * Xiaohongshu cover sits in the middle and lower part, and the storyboard asks the image model
 * to keep only the upper third calm (content/storyboard.ts ROLE_DIRECTION).
 */
export const TITLE_BLOCK_SHARE = 0.4;

/**
 * Draws Chinese cover titles and captions onto an image with the bundled font, because image
 * models garble Chinese text. The result is normalised like every output image (3:4 size,
 * re-encoded, no metadata but the input's XMP); with nothing to draw it is only normalised. Only the layers that
 * carry text are rendered (a title's block or label, at most the upper TITLE_BLOCK_SHARE of the
 * image; a caption a sixth), off
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
  // The input is a stored image: its XMP is the AIGC label of a model-drawn one (a lettered
  // cover stays labelled) and nothing for an upload, whose metadata went when it was stored.
  const { pipeline, xmp } = await normalizedPipeline(image, width, height);
  if (layers.length === 0) return encode(pipeline, { width, height, format: opts.format, xmp });
  const [decoded, rendered] = await Promise.all([pipeline.raw().toBuffer({ resolveWithObject: true }), Promise.all(layers.map((layer) => renderSvg(layer.svg)))]);
  const base = { data: decoded.data, width: decoded.info.width, height: decoded.info.height, channels: decoded.info.channels };
  for (const [i, layer] of layers.entries()) await compositeRows(base, { ...rendered[i]!, premultiplied: true }, layer.top, layer.left);
  return encode(fromRaw(base), { width, height, format: opts.format, xmp });
}

const svgOf = (width: number, height: number, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`;

/** One piece of a title line, placed: `x` is its left edge, `width` its estimated advance. */
export interface TitleRun {
  text: string;
  highlighted: boolean;
  x: number;
  width: number;
}

/** A cover title set in lines: `baseline` of each line from the top of the block, `width` of its widest line. */
export interface TitleLayout {
  fontSize: number;
  lineHeight: number;
  lines: Array<{ baseline: number; runs: TitleRun[] }>;
  width: number;
}

interface TitleStyle {
  /** Font sizes to try at 1080 px wide, largest first: the largest whose lines fit is used. */
  sizes: readonly number[];
  maxLines: number;
  lineGap: number;
  align: 'start' | 'middle';
  /** Room on each side of a highlighted run inside a line, in em, for the mark behind it. */
  markGap: number;
  /** A title in two parts (秋冬好眠｜告别脖子酸) is set as two lines instead of showing the bar. */
  breakAtBar: boolean;
  /** Room on each side of the lines at 1080 px: the margin, and the label around them. */
  inset: number;
  /** Height of the block around the lines at 1080 px (its paddings, rule, tilt and shadow): what the title may not take. */
  chrome: number;
}

/** The blocks around the lines at 1080 px, shared by their layout (STYLES) and their drawing. */
const POSTER = { padTop: 96, padBottom: 72, rule: 14 };
// Below the label: its shadow and the corner the tilt lowers (sin 2° of a full-width label, about 34 px).
const STICKER = { top: 96, pad: 44, below: 40 };
const BAND = { top: 96, fade: 80 };

const STYLES: Record<CoverTemplate, TitleStyle> = {
  poster: { sizes: [200, 176, 156, 140, 124, 112, 100, 92], maxLines: 3, lineGap: 1.22, align: 'middle', markGap: 0.06, breakAtBar: true, inset: 72, chrome: POSTER.padTop + POSTER.padBottom + POSTER.rule },
  // The label's padding and room for its tilt (20) inside the margin.
  sticker: { sizes: [136, 124, 112, 100, 92, 84, 76], maxLines: 3, lineGap: 1.3, align: 'start', markGap: 0.14, breakAtBar: true, inset: 72 + STICKER.pad + 20, chrome: STICKER.top + STICKER.pad * 2 + STICKER.below },
  band: { sizes: [88, 80, 72], maxLines: 3, lineGap: 1.25, align: 'start', markGap: 0, breakAtBar: false, inset: 64, chrome: BAND.top + BAND.fade },
};

/** What of a title is set apart: the phrase highlighted, and the phrases never broken. */
export type TitlePhrases = Pick<OverlayText, 'highlight' | 'keep'>;

/** Height of the lines of a title: the last line's glyphs end one font size below its top. */
const textHeight = (lines: number, fontSize: number, lineHeight: number) => lineHeight * (lines - 1) + fontSize;

/**
 * The title broken into lines of at most maxWidth, between words and never inside a `keep`
 * phrase, at the largest size of the style whose lines stay within maxHeight and take it whole
 * (no "…") with each `keep` phrase and the highlight on one line and no character alone on a
 * line, else the largest within maxHeight that takes it whole, each line cut into plain and
 * highlighted runs. Lines start at x = 0 (left) or are centred on maxWidth / 2; every run lies
 * within 0..maxWidth.
 */
function layoutTitle(title: string, phrases: TitlePhrases, box: { maxWidth: number; maxHeight: number }, style: TitleStyle, unit: number): TitleLayout {
  const { maxWidth, maxHeight } = box;
  const text = style.breakAtBar ? drawableText(title.replace(/\s*[｜|]\s*/gu, '\n')) : drawableText(title);
  const mark = phrases.highlight ? drawableText(phrases.highlight) : '';
  const markAt = mark ? text.indexOf(mark) : -1;
  const sizes = style.sizes.map((s) => Math.round(s * unit));
  const keep = [...(phrases.keep ?? []), ...(markAt >= 0 ? [mark] : [])];
  const attempts = sizes.map((size) => ({ size, lines: wrapBalanced(text, maxWidth - 2 * style.markGap * size, size, style.maxLines, { keep, words: true }) }));
  const low = (a: (typeof attempts)[number]) => textHeight(a.lines.length, a.size, Math.round(a.size * style.lineGap)) <= maxHeight;
  // Whole: nothing cut, and no line pushed past the edge by punctuation that may not start the next.
  const whole = (a: (typeof attempts)[number]) =>
    !a.lines[a.lines.length - 1]?.endsWith('…') && a.lines.every((line) => textWidth(line, a.size) <= maxWidth - 2 * style.markGap * a.size);
  const markKept = (a: (typeof attempts)[number]) => markAt < 0 || a.lines.some((line) => line.includes(mark));
  const noOrphan = (a: (typeof attempts)[number]) => a.lines.length < 2 || a.lines.every((line) => [...line].length > 1);
  // A size at which the product's name is wider than a line breaks it: a smaller one that keeps it is better.
  const named = (phrases.keep ?? []).map(drawableText).filter((p) => p.length > 1 && text.includes(p));
  const nameKept = (a: (typeof attempts)[number]) => named.every((p) => a.lines.some((line) => line.includes(p)));
  const chosen =
    attempts.find((a) => low(a) && whole(a) && nameKept(a) && markKept(a) && noOrphan(a)) ??
    attempts.find((a) => low(a) && whole(a) && nameKept(a) && markKept(a)) ??
    attempts.find((a) => low(a) && whole(a) && markKept(a)) ??
    attempts.find((a) => low(a) && whole(a)) ??
    attempts.find(low) ??
    attempts[attempts.length - 1]!;
  const { size: fontSize, lines } = chosen;
  const gap = style.markGap * fontSize;
  const lineHeight = Math.round(fontSize * style.lineGap);
  let cursor = 0;
  const placed = lines.map((line, i) => {
    // Where the line sits in the title (wrapping only drops spaces and breaks, and may end the last in "…").
    const core = line.endsWith('…') ? line.slice(0, -1) : line;
    const start = Math.max(cursor, text.indexOf(core, cursor));
    cursor = start + core.length;
    const cuts = [0, core.length];
    if (markAt >= 0) for (const at of [markAt - start, markAt + mark.length - start]) if (at > 0 && at < core.length) cuts.push(at);
    cuts.sort((a, b) => a - b);
    const pieces = cuts
      .slice(1)
      .map((end, j) => ({ text: core.slice(cuts[j], end), highlighted: markAt >= 0 && start + cuts[j]! >= markAt && start + end <= markAt + mark.length }))
      .filter((p) => p.text.length > 0);
    if (line.endsWith('…')) pieces.push({ text: '…', highlighted: false });
    // A mark gets room from its neighbours on the line, not past the line's ends.
    const gaps = pieces.map((p, j) => (p.highlighted ? (j > 0 ? gap : 0) + (j < pieces.length - 1 ? gap : 0) : 0));
    const lineWidth = pieces.reduce((sum, p, j) => sum + textWidth(p.text, fontSize) + gaps[j]!, 0);
    let x = style.align === 'middle' ? (maxWidth - lineWidth) / 2 : 0;
    const runs = pieces.map((p, j) => {
      if (p.highlighted && j > 0) x += gap;
      const run = { ...p, x: Math.round(x), width: Math.round(textWidth(p.text, fontSize)) };
      x += textWidth(p.text, fontSize) + (p.highlighted && j < pieces.length - 1 ? gap : 0);
      return run;
    });
    return { baseline: Math.round(i * lineHeight + fontSize * 0.88), runs, width: lineWidth };
  });
  const width = Math.round(Math.max(0, ...placed.map((line) => line.width)));
  return { fontSize, lineHeight, lines: placed.map(({ baseline, runs }) => ({ baseline, runs })), width };
}

/**
 * A cover title as `template` sets it on an image width×height: its runs lie within 0 … the
 * returned `maxWidth`, and its block within the upper TITLE_BLOCK_SHARE of the height.
 */
export function coverTitleLayout(
  template: CoverTemplate,
  size: Size,
  title: string,
  phrases: TitlePhrases = {},
): TitleLayout & { maxWidth: number } {
  const unit = size.width / 1080;
  const style = STYLES[template];
  const maxWidth = size.width - 2 * Math.round(style.inset * unit);
  const maxHeight = Math.floor(size.height * TITLE_BLOCK_SHARE) - Math.round(style.chrome * unit);
  return { ...layoutTitle(title, phrases, { maxWidth, maxHeight }, style, unit), maxWidth };
}

/** The runs of a laid-out title as `<text>` elements, each run at its own x so marks behind it line up. */
function titleSvg(layout: TitleLayout, at: { x: number; y: number }, fill: string, highlightFill: string, extra = ''): string {
  return layout.lines
    .flatMap((line) =>
      line.runs.map(
        (run) =>
          `<text x="${at.x + run.x}" y="${at.y + line.baseline}" font-family="${FONT_FAMILY}" font-size="${layout.fontSize}" font-weight="700" fill="${run.highlighted ? highlightFill : fill}" ${extra}>${escapeXml(run.text)}</text>`,
      ),
    )
    .join('');
}

/** Rectangles behind the highlighted runs: `from`..`to` are fractions of the font size measured from the top of the glyphs. */
function marks(layout: TitleLayout, at: { x: number; y: number }, opts: { from: number; to: number; padX: number; fill: string; rx: number }): string {
  const top = (line: { baseline: number }) => at.y + line.baseline - layout.fontSize * 0.88;
  return layout.lines
    .flatMap((line) =>
      line.runs
        .filter((run) => run.highlighted)
        .map(
          (run) =>
            `<rect x="${Math.round(at.x + run.x - opts.padX)}" y="${Math.round(top(line) + layout.fontSize * opts.from)}" width="${Math.round(run.width + opts.padX * 2)}" height="${Math.round(layout.fontSize * (opts.to - opts.from))}" rx="${opts.rx}" fill="${opts.fill}"/>`,
        ),
    )
    .join('');
}

/** Xiaohongshu's red, for the marks that should read as the app's own. */
const RED = '#FF2442';

/**
 * 大字报: a solid cream block over the upper part of the image, the title as large as it fits
 * (up to 200 px on a 1080 px cover) centred in near-black, the key phrase in red on a yellow
 * marker stroke over the lower half of its glyphs, and a red rule closing the block.
 */
function posterLayer({ width, height }: Size, title: string, phrases: TitlePhrases, unit: number): OverlayLayer {
  const margin = Math.round(STYLES.poster.inset * unit);
  const layout = coverTitleLayout('poster', { width, height }, title, phrases);
  const padTop = Math.round(POSTER.padTop * unit);
  const padBottom = Math.round(POSTER.padBottom * unit);
  const rule = Math.round(POSTER.rule * unit);
  const blockHeight = Math.min(height - rule, padTop + textHeight(layout.lines.length, layout.fontSize, layout.lineHeight) + padBottom);
  const at = { x: margin, y: padTop };
  const body =
    `<rect x="0" y="0" width="${width}" height="${blockHeight}" fill="#FFF6E0"/>` +
    `<rect x="0" y="${blockHeight}" width="${width}" height="${rule}" fill="${RED}"/>` +
    marks(layout, at, { from: 0.56, to: 1.02, padX: Math.round(layout.fontSize * 0.06), fill: '#FFD400', rx: Math.round(8 * unit) }) +
    titleSvg(layout, at, '#1B1B1B', RED);
  return { svg: svgOf(width, blockHeight + rule, body), top: 0, left: 0, height: blockHeight + rule };
}

/**
 * 贴纸: the photo stays whole; the title sits on a white label tilted by two degrees near the top,
 * with a soft shadow, the key phrase in white on a red tag.
 */
function stickerLayer(size: Size, title: string, phrases: TitlePhrases, unit: number): OverlayLayer {
  const margin = Math.round(72 * unit);
  const pad = Math.round(STICKER.pad * unit);
  const layout = coverTitleLayout('sticker', size, title, phrases);
  const labelWidth = layout.width + pad * 2;
  const labelHeight = textHeight(layout.lines.length, layout.fontSize, layout.lineHeight) + pad * 2;
  const top = Math.round(STICKER.top * unit);
  const shadow = Math.round(12 * unit);
  const layerHeight = top + labelHeight + Math.round(STICKER.below * unit);
  const width = size.width;
  const cx = margin + labelWidth / 2;
  const cy = top + labelHeight / 2;
  const at = { x: margin + pad, y: top + pad };
  const body =
    `<g transform="rotate(-2 ${Math.round(cx)} ${Math.round(cy)})">` +
    `<rect x="${margin + shadow}" y="${top + shadow}" width="${labelWidth}" height="${labelHeight}" rx="${Math.round(26 * unit)}" fill="#000" fill-opacity="0.22"/>` +
    `<rect x="${margin}" y="${top}" width="${labelWidth}" height="${labelHeight}" rx="${Math.round(26 * unit)}" fill="#FFFFFF"/>` +
    marks(layout, at, { from: -0.02, to: 1.1, padX: Math.round(layout.fontSize * 0.1), fill: RED, rx: Math.round(layout.fontSize * 0.16) }) +
    titleSvg(layout, at, '#202020', '#FFFFFF') +
    `</g>`;
  return { svg: svgOf(width, layerHeight, body), top: 0, left: 0, height: layerHeight };
}

/** The quiet one: the title in white on a dark gradient that fades into the photo, the key phrase in yellow. */
function bandLayer({ width, height }: Size, title: string, phrases: TitlePhrases, unit: number): OverlayLayer {
  const margin = Math.round(STYLES.band.inset * unit);
  const layout = coverTitleLayout('band', { width, height }, title, phrases);
  const top = Math.round(BAND.top * unit);
  const bandHeight = Math.min(height, top + textHeight(layout.lines.length, layout.fontSize, layout.lineHeight) + Math.round(BAND.fade * unit));
  const body =
    `<defs><linearGradient id="tb" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0.55"/><stop offset="1" stop-color="#000" stop-opacity="0"/></linearGradient></defs>` +
    `<rect x="0" y="0" width="${width}" height="${bandHeight}" fill="url(#tb)"/>` +
    titleSvg(layout, { x: margin, y: top }, '#FFFFFF', '#FFD84D', `stroke="#000000" stroke-opacity="0.35" stroke-width="${Math.max(1, Math.round(3 * unit))}" paint-order="stroke"`);
  return { svg: svgOf(width, bandHeight, body), top: 0, left: 0, height: bandHeight };
}

/** The transparent text layers for an image of width×height; empty when nothing is drawable. */
export function overlayLayers(width: number, height: number, text: OverlayText): OverlayLayer[] {
  const unit = width / 1080;
  const margin = Math.round(64 * unit);
  const layers: OverlayLayer[] = [];

  const title = text.title ? drawableText(text.title) : '';
  if (title) {
    const draw = { poster: posterLayer, sticker: stickerLayer, band: bandLayer }[text.template ?? 'band'];
    layers.push(draw({ width, height }, title, { highlight: text.highlight, keep: text.keep }, unit));
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
    layers.push({ svg: svgOf(boxWidth, boxHeight, body), top: height - margin - boxHeight, left: margin, height: boxHeight });
  }
  return layers;
}

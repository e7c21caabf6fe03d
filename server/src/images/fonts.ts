import { createRequire } from 'node:module';
import path from 'node:path';
import { renderAsync, type ResvgRenderOptions } from '@resvg/resvg-js';
import { keptSpans } from '../content/text.js';

/**
 * The CJK font ships through npm (Noto Sans Hans, SIL OFL, GB2312 coverage) so Chinese renders
 * the same on a fresh machine with no system fonts. resvg loads only these files: output never
 * depends on what the host happens to have installed.
 */
const fontDir = path.join(path.dirname(createRequire(import.meta.url).resolve('@embedpdf/fonts-sc')), '..', 'fonts');
export const FONT_FAMILY = 'Noto Sans Hans';
const RENDER_OPTIONS: ResvgRenderOptions = {
  font: {
    fontFiles: ['NotoSansHans-Regular.otf', 'NotoSansHans-Bold.otf'].map((file) => path.join(fontDir, file)),
    loadSystemFonts: false,
    defaultFontFamily: FONT_FAMILY,
  },
  shapeRendering: 2,
  textRendering: 1,
};

/** Premultiplied RGBA pixels of a rendered SVG, as resvg produces them. */
export interface RenderedSvg {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * Renders an SVG (text in FONT_FAMILY, weights 400 and 700) at its own size on libuv's thread
 * pool, so the event loop keeps serving while text is shaped and rasterised. Raw pixels, not
 * PNG: every caller composites them with sharp, and a PNG encode of a full card costs more than
 * the rendering itself. Premultiplied, as resvg keeps them.
 */
export async function renderSvg(svg: string): Promise<RenderedSvg> {
  const rendered = await renderAsync(svg, RENDER_OPTIONS);
  return { data: rendered.pixels, width: rendered.width, height: rendered.height };
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

/**
 * Emoji and other pictographs have no glyph in the bundled font and would render as boxes; XML
 * control characters would break the SVG. Both are dropped from drawn text (notes keep them).
 */
const PICTOGRAPHS = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u{FE0E}|\u{FE0F}|\u{200D}|\u{20E3}/gu;

export function drawableText(text: string): string {
  const withoutControls = [...text.replace(PICTOGRAPHS, '')].filter((ch) => ch >= ' ' || ch === '\n' || ch === '\t').join('');
  return withoutControls.replace(/[ \t]+/g, ' ').trim();
}

/**
 * Advance widths of printable ASCII (U+0020 to U+007E) in the bundled bold face, in hundredths
 * of an em, measured with resvg: wider than the regular face's, so text measured with them never
 * overflows in either.
 */
const ASCII_ADVANCE = [
  23, 37, 58, 59, 59, 96, 74, 33, 38, 38, 51, 59, 33, 37, 33, 39, 59, 59, 59, 59, 59, 59, 59, 59, 59, 59, 33, 33, 59, 59, 59, 51,
  101, 64, 68, 66, 71, 62, 59, 72, 76, 33, 57, 69, 58, 85, 75, 77, 67, 77, 68, 62, 63, 75, 62, 92, 63, 58, 61, 38, 39, 38, 59, 57,
  63, 59, 64, 53, 64, 58, 37, 60, 64, 30, 31, 61, 32, 96, 64, 63, 64, 64, 44, 50, 42, 64, 58, 86, 56, 57, 51, 38, 30, 38, 59,
];

/** Advance width in em: ASCII from the face's own metrics; CJK, full-width forms and the rest square. */
function charWidthEm(ch: string): number {
  const code = ch.codePointAt(0)!;
  if (code >= 0x20 && code <= 0x7e) return ASCII_ADVANCE[code - 0x20]! / 100;
  if (code >= 0x2e80 || (code >= 0xff00 && code <= 0xffef)) return 1;
  if (ch === '…') return 1.1;
  return 0.6;
}

export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const ch of text) em += charWidthEm(ch);
  return em * fontSize;
}

/** Lines may not start with these (Chinese typesetting: 避头尾). */
const NO_LINE_START = new Set('，。、！？；：）》」』】〕］｝〉”’,.!?;:)]}%');

const tokensOf = (text: string) => text.match(/[A-Za-z0-9%+.\-']+|\s+|./gsu) ?? [];

const WORDS = new Intl.Segmenter('zh', { granularity: 'word' });

/** Words as ICU's Chinese dictionary sees them (急救 / 干皮). */
const wordsOf = (text: string) => [...WORDS.segment(text)].map(({ segment }) => segment);

export interface WrapOptions {
  /**
   * Phrases never broken where they fit one line: the product name (云朵柔雾保湿面霜 is two
   * dictionary words, and a break between them reads as two things) and the highlight.
   */
  keep?: readonly string[];
  /** Break Chinese between words, not between any two characters (headlines). */
  words?: boolean;
}

/**
 * Breaks text into lines no wider than maxWidth, at most maxLines (the last one ending in "…"
 * when text was cut). Chinese breaks between any two characters (between words with
 * `words`); Latin words stay whole, and so does each `keep` phrase where it fits on one line.
 */
export function wrapText(text: string, maxWidth: number, fontSize: number, maxLines: number, opts: WrapOptions = {}): string[] {
  const drawn = drawableText(text);
  const split = (part: string) => (opts.words ? wordsOf(part) : tokensOf(part));
  // A Latin run wider than a line is broken between its letters rather than drawn past the edge.
  const fit = (part: string) => split(part).flatMap((token) => (textWidth(token, fontSize) > maxWidth ? [...token] : [token]));
  const kept = (opts.keep ?? []).map(drawableText).filter((p) => textWidth(p, fontSize) <= maxWidth);
  const tokens: string[] = [];
  let from = 0;
  for (const [start, end] of keptSpans(drawn, kept)) {
    tokens.push(...fit(drawn.slice(from, start)), drawn.slice(start, end));
    from = end;
  }
  tokens.push(...fit(drawn.slice(from)));
  const lines: string[] = [];
  let line = '';
  for (const token of tokens) {
    if (token === '\n' || /^\s*\n\s*$/.test(token)) {
      lines.push(line);
      line = '';
      continue;
    }
    const candidate = line + token;
    if (textWidth(candidate.trimEnd(), fontSize) <= maxWidth || line === '' || NO_LINE_START.has(token)) {
      line = candidate;
    } else {
      lines.push(line.trimEnd());
      line = token.trimStart();
    }
  }
  if (line.trim()) lines.push(line.trimEnd());
  if (lines.length <= maxLines) return lines;
  const shown = lines.slice(0, maxLines);
  let last = shown[maxLines - 1]!;
  while (last && textWidth(`${last}…`, fontSize) > maxWidth) last = [...last].slice(0, -1).join('');
  shown[maxLines - 1] = `${last}…`;
  return shown;
}

/**
 * Like wrapText, but with the lines evened out (no single character left on the last line of a
 * headline): the narrowest width that still needs no more lines and keeps the kept phrases whole.
 */
export function wrapBalanced(text: string, maxWidth: number, fontSize: number, maxLines: number, opts: WrapOptions = {}): string[] {
  const lines = wrapText(text, maxWidth, fontSize, maxLines, opts);
  if (lines.length < 2 || lines[lines.length - 1]!.endsWith('…')) return lines;
  let best = lines;
  // Narrower lines may not break a kept phrase the full width keeps whole.
  const whole = (opts.keep ?? []).map(drawableText).filter((p) => p.length > 1 && lines.some((line) => line.includes(p)));
  for (let width = maxWidth - fontSize / 2; width >= fontSize * 2; width -= fontSize / 2) {
    const next = wrapText(text, width, fontSize, maxLines, opts);
    if (next.length !== lines.length || next[next.length - 1]!.endsWith('…') || !whole.every((p) => next.some((line) => line.includes(p)))) break;
    best = next;
  }
  return best;
}

/** `<text>` with one `<tspan>` per line, for SVGs rendered by renderSvg. */
export function svgTextBlock(lines: string[], opts: { x: number; y: number; fontSize: number; lineHeight: number; weight: 400 | 700; fill: string; anchor?: 'start' | 'middle'; extra?: string }): string {
  const spans = lines
    .map((line, i) => `<tspan x="${opts.x}" y="${opts.y + i * opts.lineHeight}">${escapeXml(line)}</tspan>`)
    .join('');
  return `<text font-family="${FONT_FAMILY}" font-size="${opts.fontSize}" font-weight="${opts.weight}" fill="${opts.fill}" text-anchor="${opts.anchor ?? 'start'}" ${opts.extra ?? ''}>${spans}</text>`;
}

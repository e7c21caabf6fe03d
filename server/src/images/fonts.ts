import { createRequire } from 'node:module';
import path from 'node:path';
import { renderAsync, type ResvgRenderOptions } from '@resvg/resvg-js';

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

/** Advance width in em: CJK and full-width forms are square; Latin is roughly half. */
function charWidthEm(ch: string): number {
  const code = ch.codePointAt(0)!;
  if (code >= 0x2e80 || (code >= 0xff00 && code <= 0xffef)) return 1;
  if (ch === ' ') return 0.28;
  if (/[A-Z0-9]/.test(ch)) return 0.62;
  return 0.5;
}

export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const ch of text) em += charWidthEm(ch);
  return em * fontSize;
}

/** Lines may not start with these (Chinese typesetting: 避头尾). */
const NO_LINE_START = new Set('，。、！？；：）》」』”’,.!?;:)%');

/**
 * Breaks text into lines no wider than maxWidth, at most maxLines (the last one ending in "…"
 * when text was cut). Chinese breaks between any two characters; Latin words stay whole.
 */
export function wrapText(text: string, maxWidth: number, fontSize: number, maxLines: number): string[] {
  const tokens = drawableText(text).match(/[A-Za-z0-9%+.\-']+|\s+|./gsu) ?? [];
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
  const kept = lines.slice(0, maxLines);
  let last = kept[maxLines - 1]!;
  while (last && textWidth(`${last}…`, fontSize) > maxWidth) last = [...last].slice(0, -1).join('');
  kept[maxLines - 1] = `${last}…`;
  return kept;
}

/**
 * Like wrapText, but with the lines evened out (no single character left on the last line of a
 * headline): the narrowest width that still needs no more lines.
 */
export function wrapBalanced(text: string, maxWidth: number, fontSize: number, maxLines: number): string[] {
  const lines = wrapText(text, maxWidth, fontSize, maxLines);
  if (lines.length < 2 || lines[lines.length - 1]!.endsWith('…')) return lines;
  let best = lines;
  for (let width = maxWidth - fontSize / 2; width >= fontSize * 2; width -= fontSize / 2) {
    const next = wrapText(text, width, fontSize, maxLines);
    if (next.length !== lines.length || next[next.length - 1]!.endsWith('…')) break;
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

/**
 * Text helpers that count what a reader sees: graphemes (Intl.Segmenter), so a CJK character,
 * an emoji with its skin tone or joiners (😮‍💨, 👨‍👩‍👧) and a flag (🇨🇳) count as one each.
 */

const GRAPHEMES = new Intl.Segmenter('zh', { granularity: 'grapheme' });

/**
 * Characters that are a grapheme of their own beside any other of the kind: no break rule joins
 * two of them (ASCII and line feeds, Latin-1, general punctuation, arrows and symbols, CJK
 * punctuation without its combining tone marks, kana, CJK ideographs, full-width forms, and
 * emoji without their modifiers and flags' halves; test/generation/text.test.ts checks each one
 * against the segmenter). A note is mostly such characters; only the runs of others (joiners,
 * skin tones, flags, combining marks, CR LF…) go through the segmenter, each with one character
 * of context on either side, where a break is certain. A note's checks count its parts several
 * times on the event loop, and segmenting the whole of a 600-character body took 165 µs a call
 * (docs/performance.md, "Responsive all-in-one process").
 */
export const STANDS_ALONE = '\\n\\u0020-\\u007e\\u00a0-\\u00ff\\u2010-\\u2027\\u2030-\\u205e\\u2100-\\u2bff\\u3000-\\u3029\\u3030-\\u3096\\u309b-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uff01-\\uff60\\u{1f000}-\\u{1f1e5}\\u{1f200}-\\u{1f3fa}\\u{1f400}-\\u{1faff}';
const NEEDS_SEGMENTER = new RegExp(`[${STANDS_ALONE}]?(?:[^${STANDS_ALONE}]+[${STANDS_ALONE}]?)+`, 'gu');

/** Graphemes, as the segmenter counts them over the whole text. */
export function length(text: string): number {
  let n = 0;
  let counted = 0;
  for (const { 0: run, index } of text.matchAll(NEEDS_SEGMENTER)) {
    n += codePoints(text, counted, index);
    for (const _ of GRAPHEMES.segment(run)) n += 1;
    counted = index + run.length;
  }
  return n + codePoints(text, counted, text.length);
}

/** Code points of text[from, to), a stretch of characters that stand alone. */
function codePoints(text: string, from: number, to: number): number {
  let n = to - from;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) >= 0xd800 && text.charCodeAt(i) <= 0xdbff) n -= 1;
  return n;
}

/** Cuts to at most `max` code points without splitting a surrogate pair (internal strings: reasons, excerpts). */
export function clip(text: string, max: number): string {
  const chars = [...text.trim()];
  return chars.length <= max ? chars.join('') : chars.slice(0, max).join('');
}

/** Bounds what one rejected note adds to later prompts: its title and the first lines of its body. */
export const EXCERPT_CHARS = 80;

/**
 * `标题｜正文开头…` on one line, at most EXCERPT_CHARS graphemes plus the ellipsis: enough for a
 * writer to see what a reviewer turned down, short enough that three of them stay a footnote.
 */
export function noteExcerpt(title: string, body: string): string {
  const line = [title, body].map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean).join('｜');
  const cut = clipWords(line, EXCERPT_CHARS);
  return cut.length < line.length ? `${cut}…` : cut;
}

const WORDS = new Intl.Segmenter('zh', { granularity: 'word' });
/** One-character words a short label must not end on: they leave it hanging (…的, …和, …小). */
const HANGING = new Set(['的', '地', '得', '之', '和', '与', '及', '或', '在', '是', '了', '着', '把', '被', '让', '给', '向', '从', '对', '为', '很', '太', '更', '最', '小', '大']);
/**
 * Marks that leave a cut line open: spaces, opening brackets and quotes, dashes, separators.
 * Closing marks and symbols stay (…补水！, SPF50+, 5%).
 */
const OPEN_ENDED = /^[\s\p{Ps}\p{Pi}\p{Pd}\p{Pc}，,、：:；;·…/|｜]+$/u;

/** The longest run of whole segments from the start that fits in `max` graphemes. */
function leadingSegments(segmenter: Intl.Segmenter, text: string, max: number): string[] {
  const kept: string[] = [];
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const size = length(segment);
    if (used + size > max) break;
    kept.push(segment);
    used += size;
  }
  return kept;
}

/**
 * At most `max` graphemes, trimmed, no ellipsis added, cut between words
 * (ICU's Chinese dictionary; spaces for English), without a hanging particle or an open-ended
 * mark at the end: 秋冬换季护肤的小烦恼 → 秋冬换季护肤, never 秋冬换季护肤的小. A first word
 * longer than `max` is cut where it must be, between whole characters: an emoji with its
 * joiners and modifiers is never split.
 */
export function clipWords(text: string, max: number): string {
  const trimmed = text.trim();
  if (length(trimmed) <= max) return trimmed;
  const kept = leadingSegments(WORDS, trimmed, max);
  while (kept.length > 0) {
    const last = kept[kept.length - 1]!;
    if (!HANGING.has(last) && !OPEN_ENDED.test(last)) break;
    kept.pop();
  }
  return kept.length > 0 ? kept.join('') : leadingSegments(GRAPHEMES, trimmed, max).join('');
}

const EMOJI = /\p{Extended_Pictographic}/gu;

export function countEmoji(text: string): number {
  return text.match(EMOJI)?.length ?? 0;
}

export function countOccurrences(text: string, words: readonly string[]): number {
  let n = 0;
  for (const word of words) {
    let from = text.indexOf(word);
    while (from !== -1) {
      n += 1;
      from = text.indexOf(word, from + word.length);
    }
  }
  return n;
}

/**
 * How much of `phrase` appears in `text`: the whole phrase counts 1, otherwise the share of its
 * character bigrams found (Chinese has no spaces, so bigrams stand in for words).
 */
export function coverage(text: string, phrase: string): number {
  const p = phrase.replace(/\s+/g, '');
  if (!p) return 0;
  if (text.includes(p)) return 1;
  const chars = [...p];
  if (chars.length < 2) return 0;
  let found = 0;
  for (let i = 0; i < chars.length - 1; i += 1) {
    if (text.includes(chars[i]! + chars[i + 1]!)) found += 1;
  }
  return found / (chars.length - 1);
}

/**
 * Where the kept phrases (of two characters or more) occur in `text`, leftmost first and longest
 * at a place, never overlapping: the stretches a line break or a highlight may not cut.
 */
export function keptSpans(text: string, phrases: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const sorted = [...new Set(phrases.filter((p) => p.length > 1))].sort((a, b) => b.length - a.length);
  for (let i = 0; i < text.length; ) {
    const phrase = sorted.find((p) => text.startsWith(p, i));
    if (!phrase) {
      i += 1;
      continue;
    }
    spans.push([i, i + phrase.length]);
    i += phrase.length;
  }
  return spans;
}

/** ICU's words of `text` with each kept phrase as one word (山茶花精华液, not 山茶花 / 精华 / 液). */
export function wordsKeeping(text: string, keep: readonly string[]): string[] {
  const words: string[] = [];
  const segment = (part: string) => {
    for (const { segment: word } of WORDS.segment(part)) words.push(word);
  };
  let from = 0;
  for (const [start, end] of keptSpans(text, keep)) {
    segment(text.slice(from, start));
    words.push(text.slice(start, end));
    from = end;
  }
  segment(text.slice(from));
  return words;
}

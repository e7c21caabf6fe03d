/**
 * Text helpers that count what a reader sees: graphemes (Intl.Segmenter), so a CJK character,
 * an emoji with its skin tone or joiners (😮‍💨, 👨‍👩‍👧) and a flag (🇨🇳) count as one each.
 */

const GRAPHEMES = new Intl.Segmenter('zh', { granularity: 'grapheme' });

/** Text ICU would split into one grapheme per UTF-16 unit: printable ASCII, CJK, its punctuation and full-width forms. */
const ONE_UNIT_EACH = /^[\n\u0020-\u007e\u3000-\u303f\u4e00-\u9fff\uff01-\uff5e]*$/;

export function length(text: string): number {
  if (ONE_UNIT_EACH.test(text)) return text.length;
  let n = 0;
  for (const _ of GRAPHEMES.segment(text)) n += 1;
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

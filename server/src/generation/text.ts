/** Text helpers that count what a reader sees: code points, so emoji and CJK count as one each. */

export function length(text: string): number {
  return [...text].length;
}

/** Cuts to at most `max` characters without splitting a surrogate pair. */
export function clip(text: string, max: number): string {
  const chars = [...text.trim()];
  return chars.length <= max ? chars.join('') : chars.slice(0, max).join('');
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

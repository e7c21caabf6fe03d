const SEGMENTER = new Intl.Segmenter('zh', { granularity: 'grapheme' });

/** Characters as a reader (and the server's limits, contract-decisions §9) count them: an emoji sequence or a flag is one. */
export function graphemeCount(text: string): number {
  let n = 0;
  for (const _ of SEGMENTER.segment(text)) n += 1;
  return n;
}

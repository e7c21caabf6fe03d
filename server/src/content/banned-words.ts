export type BannedLevel = 'auto_fix' | 'soft_warn' | 'hard_block';

import TRADITIONAL_TO_SIMPLIFIED from 'opencc-js/dict/TSCharacters';

/**
 * The banned-word matcher every check uses (task creation, candidates, edits, imports, fission).
 *
 * One Aho-Corasick automaton over all words of a workspace: a single pass over the text finds
 * every occurrence of every word, so the cost grows with the text, not with the word count.
 *
 * It sees through the usual ways a word is disguised (contract-decisions §9), with offsets still
 * pointing into the original text:
 * - folding, one UTF-16 unit to one unit: ASCII case, full-width forms (`１００％` is `100%`),
 *   traditional characters (OpenCC's character table: `國家級` is `国家级`);
 * - separators inside a word: spaces, punctuation other than sentence and clause marks, symbols
 *   and emoji, zero-width characters and joiners (`国 家 级`, `最🔥好`, `国\u200b家级`), at most
 *   MAX_SEPARATOR units in a row and never across a line break or a `，。！？；：`;
 * - everyday words (EVERYDAY_WORDS: 最近, 第一次…) that merely contain a listed word are not
 *   hits: they take part in leftmost-longest matching and are then dropped.
 *
 * Overlaps resolve leftmost-longest: among occurrences starting at the same place the longest
 * wins, and an occurrence overlapping one already taken to its left is dropped. So with
 * `最` and `最好` both listed, `最好的` is one hit on `最好`.
 */

/**
 * Words with an everyday sense that contain a listed word (最, 第一, 首…): time, order and
 * quantity, not claims. A workspace listing one of them itself keeps its own entry.
 */
export const EVERYDAY_WORDS: readonly string[] = [
  '最近', '最后', '最初', '最终', '最早', '最晚', '最少', '最起码', '最低温', '最高温',
  '第一次', '第一步', '第一句', '第一天', '第一周', '第一眼', '第一口', '第一遍', '第一印象', '第一感觉', '第一时间', '第一个月', '第一部分',
  '首先', '首次', '唯一的缺点', '不是唯一',
];

/** Separator units skipped inside a word, at most this many in a row (an emoji ZWJ sequence fits). */
const MAX_SEPARATOR = 8;

export interface BannedWordEntry {
  id?: number;
  word: string;
  level: BannedLevel;
  /** Used by `auto_fix`; null removes the word. */
  replacement: string | null;
}

export interface BannedHit {
  id?: number;
  word: string;
  level: BannedLevel;
  /** UTF-16 offsets into the checked text, end exclusive (String.prototype.slice semantics). */
  start: number;
  end: number;
  /** The text as it appears (may differ from `word` in case or width). */
  matched: string;
}

export type BannedStatus = 'pass' | 'auto_fixed' | 'soft_warn' | 'hard_block';

export interface BannedCheck {
  status: BannedStatus;
  /** The text after auto-fix replacements. */
  text: string;
  /** `auto_fix` occurrences that were replaced, positions in the original text. */
  fixed: BannedHit[];
  /** `soft_warn` and `hard_block` occurrences, positions in `text` (after replacement). */
  hits: BannedHit[];
}

/** Traditional → simplified for single BMP characters (OpenCC's TSCharacters, the first reading). */
const SIMPLIFIED = (() => {
  const table = new Uint16Array(0x10000);
  for (const pair of TRADITIONAL_TO_SIMPLIFIED.split('|')) {
    const [from, to] = pair.split(' ');
    if (from?.length === 1 && to?.length === 1) table[from.charCodeAt(0)] = to.charCodeAt(0);
  }
  return table;
})();

function fold(code: number): number {
  if (code >= 0x41 && code <= 0x5a) return code + 0x20;
  if (code >= 0xff01 && code <= 0xff5e) return fold(code - 0xfee0);
  if (code === 0x3000) return 0x20;
  return SIMPLIFIED[code] || code;
}

function foldString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += String.fromCharCode(fold(s.charCodeAt(i)));
  return out;
}

/** Case, width and script folding as a table: one array read per character while scanning. */
const FOLD = (() => {
  const table = new Uint16Array(0x10000);
  for (let c = 0; c < 0x10000; c++) table[c] = fold(c);
  return table;
})();

/** Sentence and clause marks: a word never continues across them (最。好 is two words). */
const BREAKS = new Set([...'\n\r\u2028\u2029，。！？；：、,!?;:．｡']);

/**
 * 1 for the units skipped between a word's characters: whitespace, punctuation other than
 * BREAKS, symbols (emoji included; surrogates are the halves of astral emoji), format
 * characters (zero-width, joiners), combining marks and variation selectors.
 */
const SEPARATOR = (() => {
  const table = new Uint8Array(0x10000);
  const separator = /^[\s\p{P}\p{S}\p{Cf}\p{M}]$/u;
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c);
    if ((c >= 0xd800 && c <= 0xdfff) || (!BREAKS.has(ch) && separator.test(ch))) table[c] = 1;
  }
  return table;
})();

/**
 * The automaton in flat arrays. Characters are first mapped to a dense symbol (0: in no word),
 * so a character that appears in no word resets to the root with a single array read, and the
 * root, where a scan spends most of its time, has a dense transition table.
 */
export class BannedWordMatcher {
  /** `allow`: an everyday word, matched only so that the listed word inside it is not a hit. */
  private readonly entries: Array<BannedWordEntry & { length: number; allow: boolean }> = [];
  /** Positions of the last consumed (non-separator) units, a ring as long as the longest word. */
  private readonly ring: Int32Array;
  private readonly ringMask: number;
  /** UTF-16 unit → symbol (1-based; 0 = the character occurs in no word). Folding included. */
  private readonly symbolOf = new Uint16Array(0x10000);
  private readonly rootNext: Int32Array;
  private readonly next: Array<Map<number, number>>;
  private readonly fail: Int32Array;
  /** Entry of the word ending at a node, or -1. */
  private readonly output: Int32Array;
  /** Nearest node along the fail chain that ends a word (the shorter words ending here), or -1. */
  private readonly dictLink: Int32Array;

  constructor(words: Iterable<BannedWordEntry>, everyday: readonly string[] = EVERYDAY_WORDS) {
    const next: Array<Map<number, number>> = [new Map()];
    const output: number[] = [-1];
    let symbols = 0;
    const symbolFor = (unit: number) => {
      if (this.symbolOf[unit] === 0) this.symbolOf[unit] = ++symbols;
      return this.symbolOf[unit]!;
    };
    const listed = [...words].map((entry) => ({ entry, allow: false }));
    const allowed = everyday.map((word) => ({ entry: { word, level: 'soft_warn' as const, replacement: null }, allow: true }));
    let longest = 1;
    for (const { entry, allow } of [...listed, ...allowed]) {
      const folded = foldString(entry.word.trim());
      if (folded.length === 0) continue;
      let node = 0;
      for (let i = 0; i < folded.length; i++) {
        const sym = symbolFor(folded.charCodeAt(i));
        let child = next[node]!.get(sym);
        if (child === undefined) {
          child = next.length;
          next.push(new Map());
          output.push(-1);
          next[node]!.set(sym, child);
        }
        node = child;
      }
      // The same word twice (after folding) keeps the first entry: a listed word beats an everyday one.
      if (output[node] === -1) {
        output[node] = this.entries.length;
        this.entries.push({ ...entry, length: folded.length, allow });
        longest = Math.max(longest, folded.length);
      }
    }
    // Every spelling that folds to a word's character maps to the same symbol.
    for (let c = 0; c < 0x10000; c++) this.symbolOf[c] = this.symbolOf[FOLD[c]!]!;
    this.next = next;
    this.output = Int32Array.from(output);
    this.fail = new Int32Array(next.length);
    this.dictLink = new Int32Array(next.length).fill(-1);
    this.rootNext = new Int32Array(symbols + 1);
    this.ringMask = (1 << Math.ceil(Math.log2(longest + 1))) - 1;
    this.ring = new Int32Array(this.ringMask + 1);
    for (const [sym, child] of next[0]!) this.rootNext[sym] = child;
    this.link();
  }

  /** The number of listed words (everyday words not counted). */
  get size(): number {
    return this.entries.filter((e) => !e.allow).length;
  }

  private step(state: number, sym: number): number {
    return state === 0 ? this.rootNext[sym]! : (this.next[state]!.get(sym) ?? -1);
  }

  /** Breadth-first failure and dictionary links (the classic construction). */
  private link(): void {
    const queue: number[] = [...this.next[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const id = queue[head]!;
      for (const [sym, child] of this.next[id]!) {
        let f = this.fail[id]!;
        while (f !== 0 && !this.next[f]!.has(sym)) f = this.fail[f]!;
        const target = this.step(f, sym);
        const failTo = target > 0 && target !== child ? target : 0;
        this.fail[child] = failTo;
        this.dictLink[child] = this.output[failTo] !== -1 ? failTo : this.dictLink[failTo]!;
        queue.push(child);
      }
    }
  }

  /**
   * Every occurrence of every word, overlaps included, in order of their end position. A
   * separator unit the automaton has no transition for is skipped without leaving the word
   * being read; `ring` remembers where the consumed units were, so an occurrence starts at its
   * first real character and ends after its last.
   */
  private allOccurrences(text: string): Array<{ entry: number; start: number; end: number }> {
    const found: Array<{ entry: number; start: number; end: number }> = [];
    const { ring, ringMask, symbolOf } = this;
    let state = 0;
    let consumed = 0;
    let skipped = 0;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      const sym = symbolOf[unit]!;
      if (state !== 0 && SEPARATOR[unit] === 1 && skipped < MAX_SEPARATOR && (sym === 0 || this.next[state]!.get(sym) === undefined)) {
        skipped += 1;
        continue;
      }
      skipped = 0;
      if (sym === 0) {
        state = 0;
        continue;
      }
      let to = this.step(state, sym);
      while (to < 0) {
        state = this.fail[state]!;
        to = this.step(state, sym);
      }
      state = to;
      ring[consumed & ringMask] = i;
      consumed += 1;
      for (let n = this.output[state] !== -1 ? state : this.dictLink[state]!; n !== -1; n = this.dictLink[n]!) {
        const entry = this.output[n]!;
        found.push({ entry, start: ring[(consumed - this.entries[entry]!.length) & ringMask]!, end: i + 1 });
      }
    }
    return found;
  }

  /** Non-overlapping occurrences of listed words, leftmost-longest (everyday words taking part), in text order. */
  private select(text: string): Array<{ entry: number; start: number; end: number }> {
    if (this.entries.length === 0 || text.length === 0) return [];
    const all = this.allOccurrences(text);
    all.sort((a, b) => a.start - b.start || b.end - a.end);
    const chosen: typeof all = [];
    let taken = 0;
    for (const o of all) {
      if (o.start < taken) continue;
      chosen.push(o);
      taken = o.end;
    }
    return chosen.filter((o) => !this.entries[o.entry]!.allow);
  }

  private hit(text: string, o: { entry: number; start: number; end: number }): BannedHit {
    const entry = this.entries[o.entry]!;
    return {
      ...(entry.id !== undefined ? { id: entry.id } : {}),
      word: entry.word,
      level: entry.level,
      start: o.start,
      end: o.end,
      matched: text.slice(o.start, o.end),
    };
  }

  /** Non-overlapping hits, leftmost-longest, in text order. */
  scan(text: string): BannedHit[] {
    return this.select(text).map((o) => this.hit(text, o));
  }

  /** Replaces every `auto_fix` occurrence by its replacement (removes it when there is none). */
  applyAutoFix(text: string): { text: string; fixed: BannedHit[] } {
    const occurrences = this.select(text).filter((o) => this.entries[o.entry]!.level === 'auto_fix');
    if (occurrences.length === 0) return { text, fixed: [] };
    let out = '';
    let from = 0;
    for (const o of occurrences) {
      out += text.slice(from, o.start) + (this.entries[o.entry]!.replacement ?? '');
      from = o.end;
    }
    return { text: out + text.slice(from), fixed: occurrences.map((o) => this.hit(text, o)) };
  }

  /**
   * Auto-fix, then look for what is left: the status a candidate carries. A replacement that
   * itself contains a listed word is reported, not fixed again (no loops).
   */
  check(text: string): BannedCheck {
    const { text: fixedText, fixed } = this.applyAutoFix(text);
    const hits = this.scan(fixedText).filter((h) => h.level !== 'auto_fix');
    const status: BannedStatus = hits.some((h) => h.level === 'hard_block')
      ? 'hard_block'
      : hits.some((h) => h.level === 'soft_warn')
        ? 'soft_warn'
        : fixed.length > 0
          ? 'auto_fixed'
          : 'pass';
    return { status, text: fixedText, fixed, hits };
  }

  /** The distinct `hard_block` words found in any of the texts (for a 422 message). */
  hardBlocks(texts: Iterable<string>): string[] {
    const words = new Set<string>();
    for (const t of texts) for (const h of this.scan(t)) if (h.level === 'hard_block') words.add(h.word);
    return [...words];
  }
}

export function compileBannedWords(words: Iterable<BannedWordEntry>): BannedWordMatcher {
  return new BannedWordMatcher(words);
}

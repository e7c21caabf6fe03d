/**
 * Banned-word matcher vs the matcher before issue 14 (baseline.ts: no traditional folding, no
 * separators inside words, no everyday words) and vs a naive loop of `includes` per word, on a
 * 1,000-character note.
 *
 *   npx tsx bench/matcher/run.ts [wordCount=5000] [notes=500]
 *
 * Prints the time per note of each (best of five rounds), side by side, and the ratios. Words are random 2-4
 * character CJK strings plus the built-in presets; notes are random CJK text with a few real
 * hits planted, so both sides do real work. The naive side only answers "which words occur"
 * (no positions, no overlap handling), which flatters it.
 */
import { BannedWordMatcher, type BannedWordEntry } from '../../server/src/content/banned-words.js';
import { BANNED_PRESETS } from '../../server/src/modules/banned-words/presets.js';
import { BaselineMatcher } from './baseline.js';

const wordCount = Number(process.argv[2] ?? 5000);
const noteCount = Number(process.argv[3] ?? 500);

// mulberry32: a small seeded generator, so every run measures the same words and notes.
let seed = 42;
function rand(n: number): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
}
const cjk = () => String.fromCharCode(0x4e00 + rand(3000));

const levels = ['auto_fix', 'soft_warn', 'hard_block'] as const;
const words: BannedWordEntry[] = BANNED_PRESETS.flatMap((p) => p.words).map((w) => ({ ...w, replacement: w.replacement ?? null }));
const seen = new Set(words.map((w) => w.word));
while (words.length < wordCount) {
  let w = '';
  for (let i = 0, len = 2 + rand(3); i < len; i++) w += cjk();
  if (seen.has(w)) continue;
  seen.add(w);
  words.push({ word: w, level: levels[rand(3)]!, replacement: '替换' });
}

const notes: string[] = [];
for (let n = 0; n < noteCount; n++) {
  let text = '';
  // Real notes have punctuation, spaces and emoji: the new matcher's separator path gets work too.
  while (text.length < 1000) {
    const r = rand(150);
    text += r === 0 ? words[rand(words.length)]!.word : r < 8 ? ['，', '。', ' ', '✨', '😭', '！', '~'][r - 1]! : cjk();
  }
  notes.push(text.slice(0, 1000));
}

/** Best of five rounds over all notes: the machine is shared, the minimum is the least disturbed. */
function time(label: string, fn: (note: string) => number): { perNoteUs: number; found: number } {
  for (const note of notes) fn(note); // warm-up: let the JIT settle
  let found = 0;
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    found = 0;
    const start = process.hrtime.bigint();
    for (const note of notes) found += fn(note);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / notes.length / 1000);
  }
  console.log(`${label.padEnd(28)} ${best.toFixed(1).padStart(9)} µs/note   (${found} hits over ${notes.length} notes)`);
  return { perNoteUs: best, found };
}

const buildStart = process.hrtime.bigint();
const matcher = new BannedWordMatcher(words);
const buildMs = Number(process.hrtime.bigint() - buildStart) / 1e6;

console.log(`${words.length} words, ${notes.length} notes of ${notes[0]!.length} characters; automaton built in ${buildMs.toFixed(1)} ms\n`);
const baseline = new BaselineMatcher(words);
// The baseline runs first: the JIT's first victim is slower, so that would favour the new one.
const before = time('before issue 14 (scan)', (note) => baseline.scan(note).length);
const fast = time('Aho-Corasick (scan)', (note) => matcher.scan(note).length);
time('Aho-Corasick (check+autofix)', (note) => matcher.check(note).hits.length);
const naive = time('naive includes loop', (note) => {
  let n = 0;
  for (const w of words) if (note.includes(w.word)) n++;
  return n;
});
console.log(`\nratio naive / Aho-Corasick: ${(naive.perNoteUs / fast.perNoteUs).toFixed(1)}x`);
console.log(`ratio now / before issue 14: ${(fast.perNoteUs / before.perNoteUs).toFixed(2)}x (1.00 = as fast)`);
console.log(`Aho-Corasick per note: ${(fast.perNoteUs / 1000).toFixed(3)} ms (target: well under 1 ms)`);

import { STRATEGIES, type StrategyCode } from './schemas.js';
import { wordsKeeping } from './text.js';

/**
 * How a cover is lettered, decided from the text alone: which template a set's cover uses and
 * which phrase of its cover title is highlighted. Both are functions of what they are given, so
 * lettering a cover again (an edited cover title, a new selection) reproduces the same design
 * with the new words, and nothing needs storing.
 */

/**
 * The cover designs (images/overlay.ts draws them): `poster` (大字报: a huge bold title on a solid
 * block over the upper part, the key phrase on a marker stroke), `sticker` (the title on a
 * white label over the photo, the key phrase on a red tag), `band` (the title in white on a
 * soft dark gradient, the key phrase in yellow).
 */
export const COVER_TEMPLATES = ['poster', 'sticker', 'band'] as const;
export type CoverTemplate = (typeof COVER_TEMPLATES)[number];

/**
 * The template of one set: consecutive sets of one owner (a task's sets A, B, C; a fission's
 * notes 1, 2, 3) get different templates, and the owner's id shifts the start so not every
 * task opens with the same design.
 */
export function coverTemplate(ownerId: number, setIndex: number): CoverTemplate {
  const n = COVER_TEMPLATES.length;
  return COVER_TEMPLATES[(((ownerId + setIndex) % n) + n) % n]!;
}

/** A task's set: A, B and C of one task always get three different templates. */
export function taskCoverTemplate(taskId: number, strategy: StrategyCode): CoverTemplate {
  return coverTemplate(taskId, STRATEGIES.indexOf(strategy));
}

const graphemes = (text: string) => [...new Intl.Segmenter('zh', { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);

/** A phrase the writer set apart: 【…】, 「…」, “…”, "…". */
const MARKED = /【([^】]{1,8})】|「([^」]{1,8})」|“([^”]{1,8})”|"([^"]{1,8})"/u;

/** A figure with what it counts: 7天, 3步, 99%, 10倍, 5分钟, 0.5秒, 第二天. */
const FIGURE =
  /(?<![A-Za-z0-9])第?(?:[0-9０-９]+(?:[.．][0-9０-９]+)?|[一二三四五六七八九十百千万两]+(?=[个天步招件种倍块元条款次分秒周年月斤岁层套]))\s*(?:%|％|个月|分钟|小时|个|天|步|招|件|种|倍|块|元|条|款|次|分|秒|周|年|月|斤|岁|层|套|w|W|k|K|kg|cm|ml)?/u;

/**
 * Words that carry a Xiaohongshu cover: the verdict or the promise a reader stops for. Longer
 * first, so 闭眼入 wins over 入.
 */
const HOOK_WORDS = [
  '闭眼入', '天花板', '救命', '绝绝子', '绝了', '必买', '必看', '必备', '神器', '宝藏', '爆款', '真香', '亲测', '实测', '平价',
  '避雷', '避坑', '干货', '回购', '好用', '显瘦', '显白', '不踩雷', '封神', '上头', '省钱', '零失败', '保姆级', '懒人', '小白',
  '谁懂', '后悔',
].sort((a, b) => b.length - a.length);

/** Hook words that open the payoff: the highlight runs on to the end of their clause (告别脖子酸). */
const OPENERS = /(?:告别|拯救|再也不|终于|秒变|一秒)[^｜|：:，,！!？?、\s]{0,4}/u;

/** Punctuation and emoji that end a title: not part of its payoff. */
const TRAILING = /[\s\p{P}\p{Extended_Pictographic}\u{FE0F}\u{200D}]+$/u;

const SEPARATOR = /[｜|：:，,！!？?、\s]+/u;

/**
 * The phrase of a cover title to highlight, a substring of it (or null for a blank title): a
 * phrase the writer set apart in brackets or quotes, else a figure with its unit that `stated`
 * (the note's title and body; the cover title itself when none is given, as for a title an
 * operator typed) contains too: the most concrete promise (7天, 3步), and one a cover may only
 * repeat, never invent; else a hook word with the clause it opens (告别脖子酸) or alone (亲测, 闭眼入), else the shorter part of a title
 * in two parts (秋冬好眠｜告别脖子酸), else its last few characters, where Chinese headlines put
 * the payoff.
 */
export function coverHighlight(title: string, note: { stated?: string; keep?: readonly string[] } = {}): string | null {
  const stated = note.stated ?? title;
  const text = title.trim();
  if (!text) return null;
  const marked = MARKED.exec(text);
  const inner = marked?.slice(1).find((g) => g !== undefined);
  if (inner?.trim()) return inner;
  const figures = new RegExp(FIGURE.source, 'gu');
  const figure = [...text.matchAll(figures)].map((m) => m[0].trim()).find((f) => f && stated.includes(f));
  if (figure) return figure;
  const opener = OPENERS.exec(text)?.[0].replace(TRAILING, '');
  if (opener) return opener;
  const hook = HOOK_WORDS.find((word) => text.includes(word));
  if (hook) return hook;
  const parts = text.split(SEPARATOR).filter((p) => p.length > 0);
  if (parts.length >= 2) {
    const shortest = parts.reduce((a, b) => (graphemes(b).length < graphemes(a).length ? b : a));
    const size = graphemes(shortest).length;
    if (size >= 2) return shortest;
  }
  // The last words, up to four characters: 一觉睡到天亮 → 睡到天亮, never half a word (or of the product's name: `keep`) where one fits.
  const words = wordsKeeping(text.replace(TRAILING, ''), note.keep ?? []);
  if (words.length === 0) return null;
  let start = words.length - 1;
  while (start > 0 && graphemes(words.slice(start - 1).join('')).length <= 4) start -= 1;
  return tailFrom(words, start).trim() || null;
}

/** Place words that belong to the noun before them (宿舍里, 出门前): a highlight never starts with one. */
const POSTPOSITIONS = new Set([...'里上中前后内外边']);

/**
 * Characters that close the phrase before them (的, 了, 完…, and the place words): a highlight
 * may start after one. Any other lone character the segmenter leaves is most likely half of a
 * word it could not place (小 of 小技巧, 敷 of 敷完), and a highlight starting after it cuts that word.
 */
const CLOSERS = new Set([...'的了地得着过完吗呢吧啊呀也都就还是在和与及又', ...POSTPOSITIONS]);

/**
 * The last words from `start`, moved off a cut word: the lone character before them joins the
 * highlight while it stays short (小技巧日常) and is not the whole title, else the highlight
 * starts at the next clean boundary (敷完脸嫩了 → 脸嫩了).
 */
function tailFrom(words: string[], start: number): string {
  const clean = (i: number) =>
    !POSTPOSITIONS.has(words[i]!) &&
    // 脸 of 洗完脸后: a lone word before a place word is the noun it places, not a phrase's start.
    !(graphemes(words[i]!).length === 1 && POSTPOSITIONS.has(words[i + 1] ?? '')) &&
    (i === 0 || graphemes(words[i - 1]!).length > 1 || CLOSERS.has(words[i - 1]!) || SEPARATOR.test(words[i - 1]!));
  if (clean(start)) return words.slice(start).join('');
  if (start > 1 && graphemes(words.slice(start - 1).join('')).length <= 5) return words.slice(start - 1).join('');
  for (let i = start + 1; i < words.length; i += 1) if (clean(i) && graphemes(words.slice(i).join('')).length > 1) return words.slice(i).join('');
  return words.slice(start).join('');
}

/**
 * The runs of a cover title that are part of the product's name (at least three characters, as
 * long as they go): a line may not break inside one. The name is a unit to a reader although
 * the segmenter sees dictionary words in it (云朵柔雾保湿|面霜, 山茶花精华|液, 晨光保温|杯).
 */
export function productRuns(title: string, productName: string): string[] {
  const name = productName.replace(/\s+/g, '');
  const runs: string[] = [];
  for (let i = 0; i < title.length; ) {
    let end = i;
    while (end < title.length && name.includes(title.slice(i, end + 1))) end += 1;
    if (end - i >= 3) {
      runs.push(title.slice(i, end));
      i = end;
    } else i += 1;
  }
  return runs;
}

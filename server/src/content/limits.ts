import type { Note, StrategyCode } from './schemas.js';
import { STRATEGY_GUIDES } from './strategies.js';
import { clipWords, length } from './text.js';

/**
 * What a published note must satisfy (contract-decisions §9), for every text whatever produced
 * it: a model, an import or an edit. Lengths are graphemes (`length`), so an emoji sequence or a
 * flag counts as one, as the reader sees it. This module is the only place these numbers live.
 */
export const NOTE_LIMITS = {
  title: 20,
  cover_title: 12,
  content: 1000,
  tagsMin: 5,
  tagsMax: 10,
  /** Longer topic tags are not suggested by the platform's topic search; tags are shortened word-safely. */
  tag: 20,
  angle_label: 20,
  /** A line lettered on a slide (contract-decisions §8): legible on a phone; one that does not fit is not drawn rather than cut. */
  caption: 12,
} as const;

export type LimitedField = 'title' | 'cover_title' | 'content' | 'tags';

export interface LimitProblem {
  field: LimitedField;
  /** The limit broken (graphemes, or the number of tags). */
  limit: number;
  actual: number;
  /** The refusal's message (API errors are worded by code on the client). */
  message: string;
  /** The same, as a model is told it in a rewrite. */
  zh: string;
}

const FIELD_ZH: Record<LimitedField, string> = { title: '标题', cover_title: '封面标题', content: '正文', tags: '话题标签' };

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Markdown a model or a pasted text brings along; Xiaohongshu shows it as literal asterisks and hashes. */
const MARKDOWN_LINE: Array<[RegExp, string]> = [
  [/^\s{0,3}#{1,6}\s+/u, ''], // headings
  [/^\s{0,3}>\s?/u, ''], // quotes
  [/^\s{0,3}[-*+]\s+(?=\S)/u, ''], // bullets
  [/^\s{0,3}(?:[-*_]\s*){3,}$/u, ''], // rules
  [/^\s*```.*$/u, ''], // code fences
];
const MARKDOWN_INLINE: Array<[RegExp, string]> = [
  [/!\[([^\]]*)\]\([^)]*\)/gu, '$1'], // images keep their alt text only
  [/\[([^\]]+)\]\((?:[^)]*)\)/gu, '$1'], // links keep their text
  [/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/gu, '$2'], // bold
  [/~~(?=\S)(.+?)(?<=\S)~~/gu, '$1'], // strike-through
  [/`([^`\n]+)`/gu, '$1'], // inline code
  [/(^|[^*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?!\w)/gu, '$1$2'], // italics with *
];

/** The body as plain text: Markdown markers removed, their words kept. */
export function stripMarkdown(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n').map((line) => {
    let out = line;
    for (const [pattern, by] of MARKDOWN_LINE) out = out.replace(pattern, by);
    for (const [pattern, by] of MARKDOWN_INLINE) out = out.replace(pattern, by);
    return out.replace(/[ \t]+$/u, '');
  });
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/**
 * A hashtag as written in a body: `#话题`, `#话题#`, `#话题[话题]#` (the app's own form), with a
 * half- or full-width hash. It must hold a letter and not follow a Latin one (C#, 第#1 are not tags).
 */
const HASHTAG = /(?<![A-Za-z0-9])[#＃]([^\s#＃，,。.！!？?、；;：:()（）【】[\]「」"“”'‘’]{1,30}?)(?:\[话题\])?(?:[#＃](?![\p{L}\p{N}])|(?=[\s#＃，,。.！!？?、；;：:)）】」"“”'‘’]|$))/gu;
const HAS_LETTER = /\p{L}/u;

/**
 * Hashtags move from the body into the tags: a trailing block of hashtags is removed, an inline
 * `#话题` keeps its word in the sentence without the hash.
 */
export function moveHashtags(body: string): { content: string; tags: string[] } {
  const tags: string[] = [];
  const lines = body.split('\n');
  const onlyTags = (line: string) => line.trim() !== '' && line.replace(HASHTAG, (whole, tag: string) => (HAS_LETTER.test(tag) ? '' : whole)).trim() === '';
  while (lines.length > 0 && (lines[lines.length - 1]!.trim() === '' || onlyTags(lines[lines.length - 1]!))) {
    const line = lines.pop()!;
    const found = [...line.matchAll(HASHTAG)].map((m) => m[1]!);
    tags.unshift(...found);
  }
  const content = lines
    .join('\n')
    .replace(HASHTAG, (whole, tag: string) => {
      if (!HAS_LETTER.test(tag)) return whole;
      tags.push(tag);
      return tag;
    })
    .trim();
  return { content, tags };
}

/** A topic tag as published: no hash, no spaces, no punctuation, word-safely short. */
export function cleanTag(tag: string): string {
  const bare = tag
    .replace(/\[话题\]/gu, '')
    .replace(/[#＃\s\u200b\u200c\u2060\ufeff]+/gu, '')
    // Topic tags are words: punctuation and symbols go, except emoji and the few signs names use (SPF50+, C&A, K-pop).
    .replace(/(?![+&\-_·.])(?!\p{Extended_Pictographic})[\p{P}\p{S}]/gu, '')
    .replace(/^[+&\-_·.]+|[+&\-_·.]+$/gu, (edge, at: number) => (at === 0 || edge !== '+' ? '' : edge));
  return clipWords(bare, NOTE_LIMITS.tag);
}

/** Clean and distinct (ignoring case), in their order. */
export function distinctTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const tag of tags.map(cleanTag)) {
    const key = tag.toLowerCase();
    if (!tag || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}

/** Clean, distinct, at most ten: the tags a note is published with. */
export function cleanTags(tags: readonly string[]): string[] {
  return distinctTags(tags).slice(0, NOTE_LIMITS.tagsMax);
}

/** Body text as published: plain text, hashtags moved out. */
export function publishableBody(body: string): { content: string; tags: string[] } {
  return moveHashtags(stripMarkdown(body));
}

/**
 * A body over the limit, ended at the last whole sentence (or paragraph) that fits; only a body
 * without any sentence end in its second half is cut between words.
 */
export function fitBody(body: string, max: number = NOTE_LIMITS.content): string {
  if (length(body) <= max) return body;
  const segments = [...new Intl.Segmenter('zh', { granularity: 'sentence' }).segment(body)].map((s) => s.segment);
  let kept = '';
  for (const segment of segments) {
    if (length(kept + segment) > max) break;
    kept += segment;
  }
  kept = kept.trimEnd();
  return length(kept) >= max / 2 ? kept : clipWords(body, max);
}

/** The problems of a note against §9 that a rewrite can fix (too long), as told to a model or a user. */
export function limitProblems(note: { title: string; cover_title: string; content: string; tags?: readonly string[] }): LimitProblem[] {
  const problems: LimitProblem[] = [];
  const check = (field: LimitedField, actual: number, limit: number, what: string) => {
    if (actual > limit) {
      problems.push({ field, limit, actual, message: `${what} is ${actual} characters; the limit is ${limit}`, zh: `${FIELD_ZH[field]}有 ${actual} 字，超过 ${limit} 字上限` });
    }
  };
  check('title', length(note.title), NOTE_LIMITS.title, 'title');
  check('cover_title', length(note.cover_title), NOTE_LIMITS.cover_title, 'cover_title');
  check('content', length(note.content), NOTE_LIMITS.content, 'content');
  if (note.tags && note.tags.length > NOTE_LIMITS.tagsMax) {
    problems.push({
      field: 'tags',
      limit: NOTE_LIMITS.tagsMax,
      actual: note.tags.length,
      message: `${note.tags.length} tags; the limit is ${NOTE_LIMITS.tagsMax}`,
      zh: `话题标签有 ${note.tags.length} 个，超过 ${NOTE_LIMITS.tagsMax} 个上限`,
    });
  }
  return problems;
}

/** What a stored text still lacks (shown in its summary): an import's long body, too few tags. */
export function limitFlags(note: { content: string; tags: readonly string[] }): string[] {
  const flags: string[] = [];
  const size = length(note.content);
  if (size > NOTE_LIMITS.content) flags.push(`正文 ${size} 字，超过 ${NOTE_LIMITS.content} 字上限，发布前需删减`);
  if (note.tags.length < NOTE_LIMITS.tagsMin) flags.push(`话题标签 ${note.tags.length} 个，建议 ${NOTE_LIMITS.tagsMin}-${NOTE_LIMITS.tagsMax} 个`);
  return flags;
}

/**
 * A model's note cleaned without cutting anything: the title and cover title that fit among
 * the model's alternatives, plain body, hashtags moved to the tags, tags cleaned. Lengths may
 * still break the limits (no alternative fits, a long body): the caller asks
 * the model to shorten (limitProblems) before `enforceLimits` cuts as a last resort.
 */
export function normaliseNote<T extends Note>(note: T, strategy: StrategyCode): T {
  const body = publishableBody(note.content);
  return {
    ...note,
    angle_label: clipWords(oneLine(note.angle_label), NOTE_LIMITS.angle_label) || STRATEGY_GUIDES[strategy].name,
    title: firstFitting(note.title, note.title_options, NOTE_LIMITS.title),
    title_options: note.title_options.map(oneLine).filter(Boolean),
    content: body.content,
    tags: cleanTags([...note.tags, ...body.tags]),
    cover_title: firstFitting(note.cover_title, note.cover_title_options, NOTE_LIMITS.cover_title),
    cover_title_options: note.cover_title_options.map(oneLine).filter(Boolean),
    image_brief: note.image_brief.trim(),
  };
}

/** The model's choice when it fits, else its first alternative that does (so nothing is cut), else its choice as it is. */
function firstFitting(choice: string, options: readonly string[], max: number): string {
  const candidates = [choice, ...options].map(oneLine).filter(Boolean);
  return candidates.find((c) => length(c) <= max) ?? oneLine(choice);
}

/**
 * The cover title that fits: the model's own, else the title when it fits, else the title's
 * first phrase that fits (a title is often 「A｜B」), and only then a word-safe cut.
 */
export function fitCoverTitle(cover: string, title: string): string {
  const max = NOTE_LIMITS.cover_title;
  for (const candidate of [cover, title, ...title.split(/[｜|，,！!？?：:、\s]+/u)]) {
    const c = candidate.trim();
    if (c && length(c) <= max && length(c) >= Math.min(4, length(title))) return c;
  }
  return clipWords(cover || title, max);
}

/** The last resort after a rewrite: whatever is still too long is shortened between words. */
export function enforceLimits<T extends Pick<Note, 'title' | 'cover_title' | 'content' | 'tags'>>(note: T): T {
  const title = length(note.title.trim()) <= NOTE_LIMITS.title ? note.title.trim() : clipWords(note.title, NOTE_LIMITS.title);
  return {
    ...note,
    title,
    cover_title: fitCoverTitle(note.cover_title, title),
    content: fitBody(note.content.trim()),
    tags: cleanTags(note.tags),
  };
}

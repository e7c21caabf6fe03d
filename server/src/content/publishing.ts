/**
 * The publishing operation's pure rules (contract-decisions §11): links to Xiaohongshu, an
 * account's local day, how near two notes are, engagement and the medians results are weighed
 * against, and what a person posting a note is told to declare. No I/O.
 */

/** Hosts of Xiaohongshu's own pages (the web site and its short links). */
const XHS_HOSTS = ['xiaohongshu.com', 'www.xiaohongshu.com'];
const XHS_SHORT_HOSTS = ['xhslink.com', 'www.xhslink.com'];

function parseHttpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** A creator's profile page: `https://www.xiaohongshu.com/user/profile/<user id>`. */
export function isProfileUrl(value: string): boolean {
  const url = parseHttpUrl(value);
  return !!url && XHS_HOSTS.includes(url.hostname.toLowerCase()) && /^\/user\/profile\/[0-9a-zA-Z]+\/?$/.test(url.pathname);
}

/** Note ids are 24 hexadecimal digits, as in `/explore/<id>` and the creator centre's export. */
const NOTE_ID = /^[0-9a-f]{24}$/i;

export function isNoteId(value: string): boolean {
  return NOTE_ID.test(value.trim());
}

/**
 * A published note's link: a note page on xiaohongshu.com (`/explore/<id>`,
 * `/discovery/item/<id>`, or a profile's `/user/profile/<user>/<id>`), whose note id is read; or a
 * xhslink.com short link (what the app's share button copies), whose note id is unknown until a
 * metrics import names the note by title and day. Undefined: not such a link.
 */
export function parseNoteUrl(value: string): { url: string; noteId: string | null } | undefined {
  const url = parseHttpUrl(value);
  if (!url) return undefined;
  const host = url.hostname.toLowerCase();
  if (XHS_SHORT_HOSTS.includes(host)) return url.pathname.length > 1 ? { url: url.toString(), noteId: null } : undefined;
  if (!XHS_HOSTS.includes(host)) return undefined;
  const match = /^\/(?:explore|discovery\/item|user\/profile\/[0-9a-zA-Z]+)\/([0-9a-fA-F]{24})\/?$/.exec(url.pathname);
  return match ? { url: url.toString(), noteId: match[1]!.toLowerCase() } : undefined;
}

/** The note id a link or a bare id names, for matching import rows; null when it names none. */
export function noteIdOf(value: string): string | null {
  const trimmed = value.trim();
  if (isNoteId(trimmed)) return trimmed.toLowerCase();
  return parseNoteUrl(trimmed)?.noteId ?? null;
}

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** The calendar day (YYYY-MM-DD) an instant falls on in a time zone. */
export function localDay(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** Minutes a time zone is ahead of UTC at an instant. */
function zoneOffsetMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'));
  return Math.round((asUtc - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000);
}

/**
 * The instant a wall-clock time (YYYY-MM-DD, HH:MM) names in a time zone: the offset is read at
 * the guess and read again at the answer, so a time on a day the clocks change lands right.
 */
export function zonedInstant(day: string, time: string, timeZone: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const [hh, mm] = time.split(':').map(Number) as [number, number];
  const wall = Date.UTC(y, m - 1, d, hh, mm);
  const first = wall - zoneOffsetMinutes(new Date(wall), timeZone) * 60_000;
  return new Date(wall - zoneOffsetMinutes(new Date(first), timeZone) * 60_000);
}

/** The Monday (YYYY-MM-DD, Beijing time) of the week an instant falls in. */
export function weekOf(at: Date): string {
  const day = localDay(at, 'Asia/Shanghai');
  const date = new Date(`${day}T00:00:00Z`);
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  return new Date(date.getTime() - sinceMonday * 86_400_000).toISOString().slice(0, 10);
}

/**
 * How alike two notes' texts are, from 0 to 1: the Jaccard similarity of their sets of character
 * trigrams, over the text with case, width, spaces, punctuation and emoji taken out. Chinese has
 * no spaces to split words on, and trigrams of characters capture its wording without a
 * dictionary; the set ignores how often a phrase repeats. Two notes written separately about one
 * product share its name and a few selling phrases (about 0.05 to 0.2); a note copied with a
 * sentence or the title changed shares most of its trigrams (0.6 and up).
 */
export function textSimilarity(a: string, b: string): number {
  const x = trigrams(a);
  const y = trigrams(b);
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const gram of x) if (y.has(gram)) shared++;
  return shared / (x.size + y.size - shared);
}

/** From this similarity on, a note counts as a near-duplicate of a post (§11's warning). */
export const NEAR_DUPLICATE_SIMILARITY = 0.5;

function trigrams(text: string): Set<string> {
  const chars = [...text.normalize('NFKC').toLowerCase()].filter((c) => /[\p{L}\p{N}]/u.test(c));
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(''));
  if (grams.size === 0 && chars.length > 0) grams.add(chars.join(''));
  return grams;
}

export interface EngagementCounts {
  views: number | null;
  likes: number | null;
  collects: number | null;
  comments: number | null;
  shares: number | null;
}

/** §11: `(likes + collects + comments + shares) / views`, null without views; unknown counts count as 0. */
export function engagementOf(m: EngagementCounts): number | null {
  if (!m.views || m.views <= 0) return null;
  return ((m.likes ?? 0) + (m.collects ?? 0) + (m.comments ?? 0) + (m.shares ?? 0)) / m.views;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The largest weight a single post's result carries, either way (a viral post is one post). */
export const PERFORMANCE_WEIGHT_CAP = 6;

/**
 * A post's result as a preference weight: how many times its engagement is above (positive) or
 * below (negative) its account's median, on a log scale, 3 points per doubling, capped. Measured
 * against the account's own median because accounts differ tenfold in reach. Null: nothing to
 * weigh (no views, or no median above zero yet).
 */
export function performanceWeight(engagement: number | null, accountMedian: number | null): number | null {
  if (engagement === null || accountMedian === null || accountMedian <= 0) return null;
  const ratio = Math.max(engagement, accountMedian / 64) / accountMedian;
  const weight = 3 * Math.log2(ratio);
  return Math.round(Math.max(-PERFORMANCE_WEIGHT_CAP, Math.min(PERFORMANCE_WEIGHT_CAP, weight)) * 100) / 100;
}

/** `#tag #tag` as typed under a Xiaohongshu note (tags stored without their `#`). */
export function hashtagLine(tags: readonly string[]): string {
  return tags
    .map((t) => t.trim().replace(/^#+/, '').replace(/\s+/g, ''))
    .filter(Boolean)
    .map((t) => `#${t}`)
    .join(' ');
}

/**
 * The AI-content declaration a person makes when posting (§12: Xiaohongshu requires AI-made
 * content to be declared), as steps in the app's own words.
 */
export const AI_DECLARATION = {
  required: true,
  label: '笔记含AI合成内容',
  steps: [
    '在小红书发布页点「添加图片」，按顺序选择已保存的图片（第 1 张为封面）。',
    '粘贴标题和正文（正文末尾已附话题标签）。',
    '点「高级选项」→「内容类型声明」，选择「笔记含AI合成内容」。',
    '确认无误后发布，复制笔记链接回到本页点「标记已发布」。',
  ],
} as const;

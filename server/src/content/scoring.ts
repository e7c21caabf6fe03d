import type { BannedLevel } from './banned-words.js';

/** The score object of a text candidate (the contract's score table). */
export interface ScoreJson {
  title: number;
  emotion: number;
  selling: number;
  keyword: number;
  compliance: number;
  total: number;
}
import type { ScoreReply } from './schemas.js';
import { countEmoji, countOccurrences, coverage, length } from './text.js';

/** Maxima of the contract's score object; the total is their sum (100). */
export const SCORE_MAX = { title: 25, emotion: 25, selling: 25, keyword: 20, compliance: 5 } as const;
export type ScoreDimension = keyof typeof SCORE_MAX;
const DIMENSIONS = Object.keys(SCORE_MAX) as ScoreDimension[];
export const PASS_LINE = 80;

export interface ScoredText {
  score: ScoreJson;
  verdict: string;
  summary: string;
  /** The real claims a judge found the product profile does not back; absent when no judge scored the text. */
  claims?: string[];
}

export interface ScoreInput {
  title: string;
  content: string;
  tags: string[];
  productName: string;
  sellingPoints: string[];
  theme: string;
  /** Banned-word hits still in the text after auto-fix (soft_warn and hard_block). */
  bannedHits: Array<{ level: BannedLevel; word?: string }>;
}

const HOOK_WORDS = ['绝了', '必看', '救命', '终于', '谁懂', '宝藏', '亲测', '避坑', '天花板', '一定要', '别再', '原来', '后悔', '私藏', '秘诀', '手把手', '真香', '建议收藏'];
const EMOTION_WORDS = ['喜欢', '爱了', '惊喜', '开心', '幸福', '治愈', '安心', '心动', '感动', '满足', '舒服', '崩溃', '焦虑', '烦恼', '尴尬', '救星', '太好', '超级', '真的', '终于', '好看', '快乐', '放松', '温柔', '踏实'];
/** Absolute claims advertising rules forbid; each one costs a compliance point. */
const ABSOLUTE_CLAIMS = ['最好', '最佳', '第一', '100%', '百分百', '绝对', '根治', '永久', '国家级', '全网最', '万能', '无副作用', '立刻见效', '零风险'];
const NUMBER = /\d|[一二三四五六七八九十两][个天步招款种周次年月]/u;
const TITLE_PUNCTUATION = /[!！?？|｜]/u;
const EXCLAIM = /[!！?？~～]/gu;

const clampInt = (value: number, max: number) => Math.min(max, Math.max(0, Math.round(Number.isFinite(value) ? value : 0)));

function titleScore(title: string): number {
  const n = length(title.trim());
  if (n === 0) return 0;
  return (
    (n >= 8 && n <= 20 ? 10 : n >= 5 && n <= 25 ? 6 : 2) +
    (HOOK_WORDS.some((w) => title.includes(w)) ? 5 : 0) +
    (NUMBER.test(title) ? 5 : 0) +
    (countEmoji(title) > 0 ? 3 : 0) +
    (TITLE_PUNCTUATION.test(title) ? 2 : 0)
  );
}

/** An emotion word the workspace bans (治愈 under the medical-claim list) earns nothing: a score never rewards what compliance forbids. */
function emotionScore(text: string, bannedHits: ScoreInput['bannedHits']): number {
  const banned = new Set(bannedHits.map((h) => h.word));
  const words = Math.min(12, 3 * countOccurrences(text, EMOTION_WORDS.filter((w) => !banned.has(w))));
  const emoji = Math.min(8, 2 * countEmoji(text));
  const marks = Math.min(5, text.match(EXCLAIM)?.length ?? 0);
  return words + emoji + marks;
}

function sellingScore(content: string, input: ScoreInput): number {
  const points = input.sellingPoints.map((p) => p.trim()).filter(Boolean);
  if (points.length > 0) {
    const mean = points.reduce((sum, p) => sum + Math.min(1, coverage(content, p) / 0.6), 0) / points.length;
    return 25 * mean;
  }
  // Without stated selling points, reward naming the product and giving the reader some substance.
  const lines = content.split('\n').filter((l) => l.trim()).length;
  return 15 * coverage(content, input.productName) + (length(content) >= 150 ? 5 : 0) + (lines >= 3 ? 5 : 0);
}

function keywordScore(text: string, input: ScoreInput): number {
  const tags = input.tags.map((t) => t.replace(/^#/, '').trim()).filter(Boolean);
  const tagCount = tags.length >= 5 && tags.length <= 10 ? 3 : tags.length >= 3 ? 2 : 0;
  const context = `${input.theme}${input.productName}${text}`;
  const tagRelevance = tags.some((t) => coverage(context, t) >= 0.5) ? 3 : 0;
  return 8 * coverage(text, input.theme) + 6 * coverage(text, input.productName) + tagCount + tagRelevance;
}

function complianceScore(text: string, hits: ScoreInput['bannedHits']): number {
  if (hits.some((h) => h.level === 'hard_block')) return 0;
  const soft = hits.filter((h) => h.level === 'soft_warn').length;
  return 5 - soft - countOccurrences(text, ABSOLUTE_CLAIMS);
}

const LABELS: Record<ScoreDimension, string> = { title: '标题', emotion: '情绪', selling: '卖点', keyword: '关键词', compliance: '合规' };

/** The verdict follows from the total alone, so it never contradicts the pass line. */
export function verdictFor(total: number): string {
  if (total >= PASS_LINE) return '通过';
  return total >= 60 ? '待优化' : '不推荐';
}

/** Names the strongest and weakest dimension relative to their maxima. */
function summaryFor(score: ScoreJson): string {
  const ratios = DIMENSIONS.map((d) => ({ d, r: score[d] / SCORE_MAX[d] }));
  const best = ratios.reduce((a, b) => (b.r > a.r ? b : a));
  const worst = ratios.reduce((a, b) => (b.r < a.r ? b : a));
  const line = score.total >= PASS_LINE ? `${score.total} 分，达到 ${PASS_LINE} 分及格线` : `${score.total} 分，低于 ${PASS_LINE} 分及格线`;
  return `${line}；${LABELS[best.d]}最强（${score[best.d]}/${SCORE_MAX[best.d]}），${LABELS[worst.d]}待加强（${score[worst.d]}/${SCORE_MAX[worst.d]}）。`;
}

/** Integers within each maximum, total = their sum: the invariant every score we store keeps. */
export function normaliseScore(raw: Partial<Record<ScoreDimension, number>>): ScoreJson {
  const parts = Object.fromEntries(DIMENSIONS.map((d) => [d, clampInt(raw[d] ?? 0, SCORE_MAX[d])])) as Record<ScoreDimension, number>;
  return { ...parts, total: DIMENSIONS.reduce((sum, d) => sum + parts[d], 0) };
}

/** What keeps a note from passing whatever its other qualities: a hard-blocked word, a claim the product profile does not back. */
export interface ComplianceGate {
  blockedWords: string[];
  unsupportedClaims: string[];
}

/** Where the points come off when a gate closes: the selling points first (a claim that cannot be published sells nothing). */
const GATE_ORDER: ScoreDimension[] = ['selling', 'emotion', 'title', 'keyword'];

/**
 * The compliance gate (contract-decisions §9): compliance 0 and the total kept below the pass
 * line, taken off the other dimensions in GATE_ORDER, so the total stays their sum and the
 * verdict is never 通过. A note that can be fined or taken down is not a note that passes.
 */
export function applyGate(scored: ScoredText, gate: ComplianceGate): ScoredText {
  if (gate.blockedWords.length === 0 && gate.unsupportedClaims.length === 0) return scored;
  const parts = { ...scored.score, compliance: 0 };
  let excess = DIMENSIONS.reduce((sum, d) => sum + parts[d], 0) - (PASS_LINE - 1);
  for (const d of GATE_ORDER) {
    if (excess <= 0) break;
    const cut = Math.min(parts[d], excess);
    parts[d] -= cut;
    excess -= cut;
  }
  const score = normaliseScore(parts);
  const reasons = [
    ...(gate.blockedWords.length > 0 ? [`含禁用词（${gate.blockedWords.join('、')}）`] : []),
    ...(gate.unsupportedClaims.length > 0 ? [`有产品资料无法支撑的宣称（${gate.unsupportedClaims.join('；')}）`] : []),
  ];
  return { score, verdict: verdictFor(score.total), summary: `未通过合规：${reasons.join('，')}，修改前不能发布。${scored.summary}` };
}

/** The heuristic's summary says it is one: a reader must know no model judged the text. */
const HEURISTIC_PREFIX = '规则评分（未经模型评审）：';

/**
 * The deterministic scorer: `local` uses it, and every provider falls back to it when the judge
 * fails. It reads only the text and the task's inputs, so a re-score of the same text agrees.
 * A hard-blocked word closes the compliance gate.
 */
export function heuristicScore(input: ScoreInput): ScoredText {
  const text = `${input.title}\n${input.content}`;
  const score = normaliseScore({
    title: titleScore(input.title),
    emotion: emotionScore(text, input.bannedHits),
    selling: sellingScore(text, input),
    keyword: keywordScore(text, input),
    compliance: complianceScore(text, input.bannedHits),
  });
  const scored = { score, verdict: verdictFor(score.total), summary: `${HEURISTIC_PREFIX}${summaryFor(score)}` };
  return applyGate(scored, { blockedWords: blockedWordsOf(input.bannedHits), unsupportedClaims: [] });
}

function blockedWordsOf(hits: ScoreInput['bannedHits']): string[] {
  return [...new Set(hits.filter((h) => h.level === 'hard_block').map((h) => h.word ?? ''))].filter(Boolean);
}

/** What judges write in a claim list when they found none (contract-decisions §9: "无" is no claim). */
const NO_CLAIM = /^(?:无|没有|暂无|均无|未发现|未见|不存在|无不实宣称|没有不实宣称|none|n\/?a|nil|null|no|nothing|-+|—+|\/)$/iu;

/** The entries of a judge's claim list that name a claim (trimmed, without "无", "none" and the like). */
export function realClaims(list: string[]): string[] {
  return list.map((c) => c.trim().replace(/[。.！!]+$/u, '')).filter((c) => c.length > 0 && !NO_CLAIM.test(c));
}

/**
 * A judge's entry, made safe: clamped to the maxima, the total recomputed, compliance never
 * above what the deterministic check finds (the judge does not see the banned-word library),
 * and the gate closed by a hard-blocked word or a claim the judge found unsupported.
 */
export function fromJudge(entry: ScoreReply['scores'][number], heuristic: ScoredText, bannedHits: ScoreInput['bannedHits'] = []): ScoredText {
  const score = normaliseScore({
    title: entry.title,
    emotion: entry.emotion,
    selling: entry.selling,
    keyword: entry.keyword,
    compliance: Math.min(entry.compliance, heuristic.score.compliance),
  });
  const issues = entry.issues.map((i) => i.trim()).filter(Boolean);
  const summary = entry.summary.trim().slice(0, 400) || (issues.length > 0 ? `${issues.join('；')}。` : summaryFor(score));
  const claims = realClaims(entry.unsupported_claims).slice(0, 5);
  return { ...applyGate({ score, verdict: verdictFor(score.total), summary }, { blockedWords: blockedWordsOf(bannedHits), unsupportedClaims: claims }), claims };
}

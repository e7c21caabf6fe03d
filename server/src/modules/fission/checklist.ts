import { PASS_LINE, SCORE_MAX, type ScoreDimension } from '../../content/scoring.js';
import { length } from '../../content/text.js';
import type { SetImage, StoredNote } from './pipeline.js';

/**
 * `checklist.md` of a fission download: per set what a publisher checks before posting (title
 * length, tag count, images and their roles, banned words, score) and what to improve first.
 * Built from stored data only, so the same fission always yields the same file.
 */

export const TITLE_MAX = 20;
export const TAGS_MIN = 5;
export const TAGS_MAX = 10;

export interface ChecklistSet {
  folder: string;
  seq: number;
  dimension: string;
  status: string;
  score: number;
  note: StoredNote;
  images: SetImage[];
}

const ADVICE: Record<ScoreDimension, string> = {
  title: 'sharpen the title: a concrete number or result, a hook word, at most 20 characters',
  emotion: 'add feeling: a first-person moment, a few fitting emoji, a livelier voice',
  selling: 'carry the selling points as benefits the reader can picture, each one once',
  keyword: 'name the theme and the product in the text and make the tags match them',
  compliance: 'remove absolute or exaggerated claims and any flagged words',
};

const box = (ok: boolean) => (ok ? '[x]' : '[ ]');

/**
 * Text from a note or a provider (titles, tags, roles, the judge's summary) as Markdown text:
 * one line, and every character that could start markup in the middle of a line
 * backslash-escaped (CommonMark §2.4: HTML and autolinks `<`, entities `&`, links and images `[`
 * `]`, emphasis `*` `_` `~`, code `` ` ``), so `<script>` or `<img onerror=…>` shows as the
 * characters it is in any Markdown viewer and raw HTML never reaches one (issue 17, finding 7).
 */
export function markdownText(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\`*_[\]<>&~]/g, '\\$&');
}

function bannedLine(note: StoredNote): { ok: boolean; text: string; words: string[] } {
  const { status, hits } = note._block;
  const words = [...new Set(hits.filter((h) => h.level !== 'auto_fix').map((h) => h.word))];
  const ok = status === 'pass' || status === 'auto_fixed';
  const detail = status === 'auto_fixed' ? ' (replaced automatically)' : words.length > 0 ? ` (${words.map(markdownText).join(', ')})` : '';
  return { ok, text: `Banned words: ${status}${detail}`, words: ok ? [] : words };
}

function setSection(set: ChecklistSet): { lines: string[]; ready: boolean } {
  const { note, images } = set;
  const titleLength = length(note.title);
  const titleOk = titleLength > 0 && titleLength <= TITLE_MAX;
  const tagsOk = note.tags.length >= TAGS_MIN && note.tags.length <= TAGS_MAX;
  const made = images.filter((i) => i.file_key);
  const failed = images.filter((i) => i.error);
  const waiting = images.filter((i) => !i.file_key && !i.error);
  const imagesOk = images.length > 0 && made.length === images.length;
  const banned = bannedLine(note);
  const passed = set.score >= PASS_LINE;
  const roles = images.map((i) => `${markdownText(i.role)}${i.file_key ? '' : i.error ? ' (failed)' : ' (pending)'}`).join(', ');

  const todo: string[] = [];
  if (!titleOk) todo.push(titleLength === 0 ? 'write a title' : `shorten the title to at most ${TITLE_MAX} characters`);
  if (!tagsOk) todo.push(`use ${TAGS_MIN}-${TAGS_MAX} tags (now ${note.tags.length})`);
  if (failed.length > 0) todo.push(`retry the failed images (${failed.map((i) => markdownText(i.role)).join(', ')})`);
  if (waiting.length > 0) todo.push(`wait for the pending images (${waiting.map((i) => markdownText(i.role)).join(', ')})`);
  if (!banned.ok) todo.push(banned.words.length > 0 ? `remove or replace: ${banned.words.map(markdownText).join(', ')}` : 'resolve the banned-word warnings');
  // Weakest dimensions first, relative to their maxima; only those clearly short of full marks.
  const score = note._score;
  const weak = (Object.keys(SCORE_MAX) as ScoreDimension[])
    .map((d) => ({ d, ratio: score[d] / SCORE_MAX[d] }))
    .filter((x) => x.ratio < 0.8)
    .sort((a, b) => a.ratio - b.ratio);
  if (!passed) for (const { d } of weak) todo.push(`${d} ${score[d]}/${SCORE_MAX[d]}: ${ADVICE[d]}`);

  const lines = [
    `## ${set.folder} · ${markdownText(set.dimension)}`,
    '',
    `- Title: ${markdownText(note.title)}`,
    `- Status: ${set.status}`,
    `- ${box(titleOk)} Title length: ${titleLength} characters (at most ${TITLE_MAX})`,
    `- ${box(tagsOk)} Tags: ${note.tags.length} (${TAGS_MIN}-${TAGS_MAX})${note.tags.length > 0 ? `: ${note.tags.map((t) => `#${markdownText(t)}`).join(' ')}` : ''}`,
    `- ${box(imagesOk)} Images: ${made.length} of ${images.length}${roles ? `: ${roles}` : ''}`,
    `- ${box(banned.ok)} ${banned.text}`,
    `- ${box(passed)} Score: ${set.score} / 100 (pass line ${PASS_LINE})${passed ? '' : ': needs optimization'}; title ${score.title}/${SCORE_MAX.title}, emotion ${score.emotion}/${SCORE_MAX.emotion}, selling ${score.selling}/${SCORE_MAX.selling}, keyword ${score.keyword}/${SCORE_MAX.keyword}, compliance ${score.compliance}/${SCORE_MAX.compliance}`,
    ...(score.summary ? [`- Scorer: ${markdownText(score.summary)}`] : []),
    `- Optimise: ${todo.length > 0 ? todo.join('; ') : 'nothing required, ready to publish'}`,
    '',
  ];
  return { lines, ready: todo.length === 0 };
}

export function checklistMarkdown(fission: { id: number; source_task_id: number; reference_level: string; status: string }, sets: ChecklistSet[]): string {
  const sections = sets.map(setSection);
  const ready = sections.filter((s) => s.ready).length;
  return [
    `# Publishing checklist: fission ${fission.id}`,
    '',
    `Source task ${fission.source_task_id} · reference level ${fission.reference_level} · ${sets.length} set${sets.length === 1 ? '' : 's'} · status ${fission.status} · ${ready} ready to publish`,
    '',
    ...sections.flatMap((s) => s.lines),
  ].join('\n');
}

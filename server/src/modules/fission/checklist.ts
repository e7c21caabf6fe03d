import { PASS_LINE, SCORE_MAX, type ScoreDimension } from '../../content/scoring.js';
import { PUBLISH_REMINDERS } from '../../content/note-text.js';
import { length } from '../../content/text.js';
import type { NoteRow, SlotImage } from '../notes/service.js';

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
  note: NoteRow;
  images: SlotImage[];
}

const ADVICE: Record<ScoreDimension, string> = {
  title: '打磨标题：写出具体数字或结果，加一个钩子词，不超过 20 字',
  emotion: '加强情绪：加入第一人称的真实场景、几个贴切的表情，语气更生动',
  selling: '把卖点写成读者能想象到的好处，每个卖点只讲一次',
  keyword: '正文里点明主题和产品，并让话题标签与之对应',
  compliance: '删除绝对化或夸大的说法以及被标记的词',
};

const DIMENSION: Record<ScoreDimension, string> = { title: '标题', emotion: '情绪', selling: '卖点', keyword: '关键词', compliance: '合规' };
const ROLE: Record<string, string> = { hook: '封面', main: '主图', pain: '痛点', proof: '证明', quality: '质感', credit: '背书', convert: '转化' };
const NOTE_STATUS: Record<string, string> = { image_done: '已完成', failed: '失败', pending: '生成中' };
const FISSION_STATUS: Record<string, string> = { generating: '生成中', completed: '已完成', failed: '失败' };
const LEVEL: Record<string, string> = { low: '低（换角度换结构）', mid: '中（同主题换角度或结构）', high: '高（同结构换措辞和图片）' };
// A hard-blocked note never reaches a checklist: the download refuses it.
const BANNED: Record<string, string> = { pass: '通过', auto_fixed: '已自动替换', soft_warn: '有提醒' };

const roleName = (role: string) => ROLE[role] ?? markdownText(role);

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

function bannedLine(note: NoteRow): { ok: boolean; text: string; words: string[] } {
  const { banned_word_status: status, banned_hits: hits } = note;
  const words = [...new Set(hits.filter((h) => h.level !== 'auto_fix').map((h) => h.word))];
  const ok = status === 'pass' || status === 'auto_fixed';
  const detail = status === 'auto_fixed' ? '' : words.length > 0 ? `（${words.map(markdownText).join('、')}）` : '';
  return { ok, text: `违禁词：${BANNED[status] ?? status}${detail}`, words: ok ? [] : words };
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
  const roles = images.map((i) => `${roleName(i.role)}${i.file_key ? '' : i.error ? '（失败）' : '（生成中）'}`).join('、');

  const todo: string[] = [];
  if (!titleOk) todo.push(titleLength === 0 ? '写一个标题' : `把标题缩短到 ${TITLE_MAX} 字以内`);
  if (!tagsOk) todo.push(`话题标签用 ${TAGS_MIN}-${TAGS_MAX} 个（现在 ${note.tags.length} 个）`);
  if (failed.length > 0) todo.push(`重试失败的图片（${failed.map((i) => roleName(i.role)).join('、')}）`);
  if (waiting.length > 0) todo.push(`等待生成中的图片（${waiting.map((i) => roleName(i.role)).join('、')}）`);
  if (!banned.ok) todo.push(banned.words.length > 0 ? `删除或替换：${banned.words.map(markdownText).join('、')}` : '处理违禁词提醒');
  // Weakest dimensions first, relative to their maxima; only those clearly short of full marks.
  const score = note.score;
  const weak = (Object.keys(SCORE_MAX) as ScoreDimension[])
    .map((d) => ({ d, ratio: score[d] / SCORE_MAX[d] }))
    .filter((x) => x.ratio < 0.8)
    .sort((a, b) => a.ratio - b.ratio);
  if (!passed) for (const { d } of weak) todo.push(`${DIMENSION[d]} ${score[d]}/${SCORE_MAX[d]}：${ADVICE[d]}`);

  const lines = [
    `## ${set.folder} · ${markdownText(set.dimension)}`,
    '',
    `- 标题：${markdownText(note.title)}`,
    `- 状态：${NOTE_STATUS[set.status] ?? set.status}`,
    `- ${box(titleOk)} 标题长度：${titleLength} 字（不超过 ${TITLE_MAX}）`,
    `- ${box(tagsOk)} 话题标签：${note.tags.length} 个（${TAGS_MIN}-${TAGS_MAX}）${note.tags.length > 0 ? `：${note.tags.map((t) => `#${markdownText(t)}`).join(' ')}` : ''}`,
    `- ${box(imagesOk)} 图片：${made.length} / ${images.length}${roles ? `：${roles}` : ''}`,
    `- ${box(banned.ok)} ${banned.text}`,
    `- ${box(passed)} 评分：${set.score} / 100（达标线 ${PASS_LINE}）${passed ? '' : '，需要优化'}；${(Object.keys(SCORE_MAX) as ScoreDimension[]).map((d) => `${DIMENSION[d]} ${score[d]}/${SCORE_MAX[d]}`).join('，')}`,
    ...(note.summary ? [`- 评审意见：${markdownText(note.summary)}`] : []),
    `- 优化建议：${todo.length > 0 ? todo.join('；') : '无需修改，可以发布'}`,
    '',
  ];
  return { lines, ready: todo.length === 0 };
}

export function checklistMarkdown(fission: { id: number; source_task_id: number; reference_level: string; status: string }, sets: ChecklistSet[]): string {
  const sections = sets.map(setSection);
  const ready = sections.filter((s) => s.ready).length;
  return [
    `# 发布检查清单：裂变 ${fission.id}`,
    '',
    `来源任务 ${fission.source_task_id} · 参考程度 ${LEVEL[fission.reference_level] ?? fission.reference_level} · 共 ${sets.length} 套 · 状态 ${FISSION_STATUS[fission.status] ?? fission.status} · ${ready} 套可直接发布`,
    '',
    '发布前声明：',
    ...PUBLISH_REMINDERS.map((r) => `- [ ] ${r}`),
    '',
    ...sections.flatMap((s) => s.lines),
  ].join('\n');
}

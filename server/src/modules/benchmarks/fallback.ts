import type { BenchmarkFeatures } from './features.js';

const AUDIENCES = ['学生党', '打工人', '上班族', '宝妈', '新手妈妈', '敏感肌', '干皮', '油皮', '混油', '男生', '女生', '租房党', '健身', '小个子', '微胖', '中年', '老人', '新手'];
const PROOF_WORDS = ['实测', '对比', '测评', '效果', '成分', '数据', '%', '天', '小时', '前后', '亲测'];
const EMOJI = /\p{Extended_Pictographic}/gu;

function sentences(text: string): string[] {
  return text
    .split(/[\n。！？!?]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The analysis written when the model fails or answers off-schema: what can honestly be read
 * from the hand-written highlights (and the page title) without a model. It describes, it does
 * not guess; dimensions with nothing to go on say so.
 */
export function fallbackFeatures(input: { highlights: string; pageTitle?: string | undefined; hasScreenshot: boolean }): BenchmarkFeatures {
  const highlights = input.highlights.trim();
  const parts = sentences(highlights);
  const title = input.pageTitle?.trim() || parts[0] || '';
  const titleTraits = [
    /\d/.test(title) ? '数字' : '',
    /[?？]/.test(title) ? '提问' : '',
    /[!！]/.test(title) ? '感叹' : '',
    /\p{Extended_Pictographic}/u.test(title) ? '表情' : '',
  ].filter(Boolean);
  const emojis = [...new Set(highlights.match(EMOJI) ?? [])];
  const exclamations = (highlights.match(/[!！]/g) ?? []).length;
  const listLike = /(^|\n)\s*(\d+[.、)]|[-•·✅])/.test(highlights);
  const proof = parts.filter((s) => PROOF_WORDS.some((w) => s.includes(w)));
  const audience = AUDIENCES.filter((a) => highlights.includes(a));
  const tags = [...new Set([...highlights.matchAll(/#([^\s#，,。]{1,30})/g)].map((m) => m[1]!))].slice(0, 15);
  const none = '（未能从亮点中识别）';
  return {
    title_formula: title ? `参考标题「${title.slice(0, 60)}」${titleTraits.length ? `：${titleTraits.join('+')}型` : ''}` : none,
    opening_hook: parts[0] ? parts[0].slice(0, 120) : none,
    body_structure: parts.length ? `${parts.length} 个要点${listLike ? '，清单式分点' : '，段落叙述'}` : none,
    selling_point_presentation: proof.length ? proof.slice(0, 3).join('；').slice(0, 300) : parts.length > 1 ? parts.slice(1, 4).join('；').slice(0, 300) : none,
    emotion_tone_emoji: `${emojis.length ? `表情 ${emojis.slice(0, 8).join('')}` : '少用表情'}，${exclamations >= 2 ? '语气热烈' : '语气平实'}`,
    target_audience: audience.length ? audience.join('、') : none,
    topic_tags: tags,
    visual_pacing: input.hasScreenshot ? '（截图未能自动分析，请人工查看）' : '（无截图）',
  };
}

import type { Note, NotesIntentInput, StrategyCode } from '../../content/schemas.js';
import { EVERYDAY_WORDS } from '../../content/banned-words.js';
import { clipWords, length } from '../../content/text.js';
import { imagePlan } from './plan.js';
import { Random } from './random.js';

/**
 * The offline provider's writer: fluent Xiaohongshu-style notes assembled from phrase banks
 * per strategy, filled with the product profile, the theme, benchmark highlights and the
 * preference context. Deterministic for a seed; no network.
 */

const cp = (text: string) => [...text].length;

/** The first title template that fits in `max` graphemes, else the first one shortened between words. */
function fitting(candidates: string[], max: number): string {
  return candidates.find((t) => length(t) <= max) ?? clipWords(candidates[0] ?? '', max);
}

/** A short product name for titles: the part before a space or bracket, at most 8 characters. */
function shortName(name: string): string {
  const head = name.trim().split(/[\s（(【[｜|,，]/u)[0] || name.trim();
  return clipWords(head, 8);
}

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

interface Voice {
  emoji: string[];
  hooks: string[];
  intro: string[];
  point: string[];
  closing: string[];
  titles: string[];
  covers: string[];
  tags: string[];
  brief: string;
}

/** Placeholders: {name} {short} {theme} {angle} {point} {category} {scene}. No number is made up: facts come from the product only. */
const VOICES: Record<StrategyCode, Voice> = {
  A: {
    emoji: ['😭', '🥲', '💔', '😮‍💨', '🙋‍♀️'],
    hooks: [
      '说真的，关于{angle}，我有好多话想说{e}',
      '谁懂啊！每次{theme}都有点手忙脚乱{e}',
      '姐妹们，说到{angle}，我太有共鸣了{e}',
      '以前每次{theme}，我总觉得少了点什么{e}',
    ],
    intro: [
      '试过好多办法都不太理想，直到遇见了{name}，才发现原来问题可以这么简单地解决。',
      '踩过不少坑以后，朋友把{name}推荐给我，用了一段时间，终于可以放心地说：它真的懂我。',
      '一开始我也半信半疑，结果{name}用下来，{angle}的情况明显好了很多，心情都跟着变好了。',
    ],
    point: ['✅ {point}，这一点真的戳中我', '✅ {point}，用起来特别安心', '✅ {point}，日常用着很省心'],
    closing: ['你们平时会怎么安排呢？评论区一起聊聊吧👇', '关于{angle}，你有什么心得吗？💗', '希望这篇对正在纠结的你有一点帮助🫶'],
    titles: ['{theme}｜{short}帮了我大忙{e}', '{angle}｜说说我的{short}', '{theme}｜我离不开{short}', '{short}｜{theme}的小帮手{e}', '{theme}真心话｜{short}'],
    covers: ['{short}帮了大忙', '{theme}真心话', '说说{short}'],
    tags: ['真实分享', '经验分享', '好物心得'],
    brief: '真实生活中的人物情绪瞬间，柔和自然光',
  },
  B: {
    emoji: ['📝', '🔍', '📊', '🧪', '✍️'],
    hooks: [
      '{short}用了一段时间，来交作业啦{e}',
      '不吹不黑，{short}的真实用后感来了{e}',
      '{theme}用上了{short}，结论先放这里{e}',
    ],
    intro: [
      '我是在日常{theme}的时候用的，下面只说自己上手的真实感受。',
      '先说说{name}让我留意的几个地方，都是自己用出来的体会。',
      '先说结论：{name}整体用下来挺顺手，下面是我在意的几个点。',
    ],
    point: ['{i}️⃣ {point}：实测下来表现稳定', '{i}️⃣ {point}：对比之下优势明显', '{i}️⃣ {point}：细节处理得很用心'],
    closing: ['个人感受仅供参考，理性种草～还想看哪款的用后感，留言告诉我📮', '以上都是个人真实体验，仅供参考，有问题评论区问我🙋', '你们用过吗？感受一样吗？评论区聊聊📌'],
    titles: ['{short}真实用后感｜优缺点都说', '{theme}｜{short}上手体验', '{short}值不值？说说我的感受', '{category}好物｜{short}用后感', '{theme}实用派｜{short}'],
    covers: ['{short}用后感', '真实上手体验', '优缺点都说'],
    tags: ['真实测评', '好物测评', '测评'],
    brief: '干净的测评风格，产品质感与细节特写，中性背景，对比式构图',
  },
  C: {
    emoji: ['☀️', '🌿', '✨', '☕️', '🌸'],
    hooks: [
      '{scene}，阳光刚刚好{e}',
      '最近的{scene}，总少不了它{e}',
      '记录一下我的{scene}日常{e}',
    ],
    intro: [
      '{theme}的节奏里，{name}就这样自然地成为了生活的一部分，不张扬，却很让人安心。',
      '把{name}放进日常以后，连普通的一天都变得有仪式感了。',
      '原来生活里的小确幸，有时候就藏在一件称手的好物里，比如{name}。',
    ],
    point: ['{e} {point}，随手就能用上', '{e} {point}，让每个瞬间都更舒服', '{e} {point}，是生活里的小惊喜'],
    closing: ['你的{theme}会带上它吗？评论区告诉我💬', '愿你也能找到属于自己的生活节奏🌿', '把日子过成自己喜欢的样子吧✨'],
    titles: ['{theme}｜{short}的氛围感', '{scene}常备｜{short}太懂我', '{short}｜我的{theme}日常{e}', '和{short}一起的{theme}', '{theme}好物｜{short}'],
    covers: ['{theme}日常', '{scene}常备', '氛围感拉满'],
    tags: ['生活方式', '氛围感', '日常分享'],
    brief: '生活方式摄影，产品在真实精致的生活场景中被使用，温暖向往的氛围',
  },
};

const SCENES = ['周末早晨', '通勤路上', '出门旅行', '午后时光', '周末出游', '日常出门'];

function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => vars[key] ?? '');
}

/** Removes avoided words, sparing the everyday words that contain one (最近 keeps its 最). */
function scrub(text: string, words: string[]): string {
  const spared: string[] = [];
  let out = text;
  for (const everyday of EVERYDAY_WORDS) {
    if (!out.includes(everyday)) continue;
    out = out.split(everyday).join(String.fromCharCode(0xe000 + spared.length));
    spared.push(everyday);
  }
  for (const word of words) if (word) out = out.split(word).join('');
  // Private-use characters stand in for the spared words: no avoided word can contain one.
  return out.replace(/[\ue000-\ue0ff]/g, (mark) => spared[mark.charCodeAt(0) - 0xe000]!);
}

/** The stand-in angle when the product names none: the theme's trouble, in at most 8 characters. */
function themeTrouble(theme: string): string {
  const fits = [`${theme}的小烦恼`, `${theme}的烦恼`, `${theme}烦恼`].find((label) => cp(label) <= 8);
  return fits ?? `${clipWords(theme, 6)}烦恼`;
}

function tagOf(text: string): string {
  return clipWords(text.replace(/[#\s，,。.！!？?｜|]/gu, ''), 12);
}

export interface ComposeOptions {
  /** 0-based position of the note inside its set. */
  index: number;
}

/** One note for the set described by `input`. */
export function composeNote(input: NotesIntentInput, { index }: ComposeOptions): Note {
  const voice = VOICES[input.strategy] ?? VOICES.A;
  const rng = new Random(`${input.seed}/note/${index}`);
  const product = input.product;
  const name = clean(product.name) || '这款好物';
  const short = shortName(name);
  // The whole theme: titles take the templates it fits in, a tag leaves it out when too long; it is never cut.
  const theme = clean(input.theme) || '日常';
  const angles = product.text_angles.map(clean).filter(Boolean);
  // A recent preference naming one of the angles puts that angle first.
  const preferred = angles.find((a) => input.preferences.recent_preference.includes(a));
  const ordered = preferred ? [preferred, ...angles.filter((a) => a !== preferred)] : angles;
  const angle = ordered.length > 0 ? clipWords(ordered[index % ordered.length]!, 8) : themeTrouble(theme);
  const points = product.selling_points.map(clean).filter(Boolean);
  const scene = rng.pick(SCENES);
  const vars = { name, short, theme, angle, scene, category: clipWords(clean(product.category) || '好物', 6) };
  const e = () => rng.pick(voice.emoji);
  const say = (template: string, extra: Record<string, string> = {}) => fill(template, { ...vars, e: e(), ...extra });

  const titles = [...voice.titles.slice(index % voice.titles.length), ...voice.titles.slice(0, index % voice.titles.length)].map((t) => say(t));
  const title = fitting(titles, 20);
  const covers = voice.covers.map((t) => say(t));
  const cover = fitting(covers, 12);

  // Rejected before: a calmer, evidence-first voice and an explicit note against overclaiming.
  const cautious = input.preferences.reject_reasons.length > 0;
  const body: string[] = [say(rng.pick(voice.hooks)), '', say(rng.pick(voice.intro))];
  if (points.length > 0) {
    body.push('');
    // Rotate through the templates so no two points of a note read the same.
    const offset = rng.int(0, voice.point.length - 1);
    points.slice(0, 5).forEach((point, i) => body.push(say(voice.point[(offset + i) % voice.point.length]!, { point, i: String(i + 1) })));
  }
  // Popular benchmark notes close with a one-line recap; follow that structure when there are any.
  if (input.benchmarks.length > 0 && points.length > 0) body.push('', `📌 一句话总结：${points.slice(0, 2).join('、')}，${theme}很省心`);
  body.push('', `${theme}的时候，真的很需要这样一件称手的好物～`);
  if (cautious) body.push('', '每个人情况不同，效果因人而异，按需入手就好🙏');
  body.push('', say(rng.pick(voice.closing)));

  const tags = [
    short,
    tagOf(product.category),
    // A theme too long for a tag is left out rather than cut (#周末野餐带什么一杯 reads as a typo).
    ...(cp(clean(theme).replace(/\s/g, '')) <= 12 ? [tagOf(theme)] : []),
    tagOf(angle),
    ...voice.tags,
    '好物分享',
    '小红书种草',
  ].filter((t, i, all) => t && all.indexOf(t) === i);

  return scrubNote(
    {
      angle_label: angle,
      title,
      title_options: titles.filter((t) => t !== title && cp(t) <= 20).slice(0, 2),
      content: body.join('\n'),
      tags: tags.slice(0, 8),
      cover_title: cover,
      cover_title_options: covers.filter((c) => c !== cover && cp(c) <= 12).slice(0, 2),
      // The first note of a set plans the set's images.
      image_plan: index === 0 ? imagePlan(input.image_roles ?? [], { angle_label: angle, cover_title: cover }) : [],
      image_brief: `${name}的产品展示与使用场景，${voice.brief}，画面中不出现任何文字或水印`,
    },
    input.avoid_words,
    voice.tags[0]!,
  );
}

/** Removes every avoided word from every field; an emptied short field gets a neutral stand-in. */
function scrubNote(note: Note, words: string[], standIn: string): Note {
  const avoid = words.filter(Boolean);
  if (avoid.length === 0) return note;
  const tags = note.tags.filter((t) => !avoid.some((w) => t.includes(w)));
  return {
    angle_label: scrub(note.angle_label, avoid) || standIn,
    title: scrub(note.title, avoid) || standIn,
    title_options: note.title_options.map((t) => scrub(t, avoid)).filter(Boolean),
    content: scrub(note.content, avoid),
    tags: tags.length >= 3 ? tags : [...tags, '日常分享', '生活记录', '种草'].filter((t) => !avoid.some((w) => t.includes(w))),
    cover_title: scrub(note.cover_title, avoid) || standIn,
    cover_title_options: note.cover_title_options.map((t) => scrub(t, avoid)).filter(Boolean),
    image_brief: scrub(note.image_brief, avoid),
    image_plan: note.image_plan.map((item) => ({ ...item, brief: scrub(item.brief, avoid), caption: scrub(item.caption, avoid) })),
  };
}

/** The reply to a `notes` intent: `count` notes, or the rewrite of one blocked note. */
export function composeNotes(input: NotesIntentInput): { notes: Note[] } {
  if (input.rewrite) {
    return { notes: [scrubNote(input.rewrite.note, [...input.rewrite.blocked_words, ...input.avoid_words], '日常分享')] };
  }
  return { notes: Array.from({ length: Math.max(1, input.count) }, (_, index) => composeNote(input, { index })) };
}

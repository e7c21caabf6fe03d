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
  /** The one-line recap benchmark notes close with: the first selling points, in this voice's words. */
  recap: string;
  /** Said when notes were rejected before: a calmer line that claims nothing. */
  caution: string;
  closing: string[];
  titles: string[];
  covers: string[];
  tags: string[];
  brief: string;
}

/**
 * Placeholders: {name} {short} {theme} {angle} {point} {points} {category} {scene}. The theme and
 * the angle are phrases of any shape (学生党平价, 周末野餐带什么), so a sentence names them in
 * 「」 as a topic or before ｜ as a heading, never as a noun it asks a question about. A line
 * says what the product profile says and how the writer used it: no figure, no comparison, no
 * promised effect (contract-decisions §9), and no line shared by two voices, so the sets of a
 * task never repeat one another.
 */
const VOICES: Record<StrategyCode, Voice> = {
  A: {
    emoji: ['😭', '🥲', '💔', '😮‍💨', '🙋‍♀️'],
    hooks: ['说到「{theme}」，我真的有好多话想说{e}', '谁懂啊！{scene}总有点手忙脚乱{e}', '聊聊「{angle}」这件小事{e}', '这阵子一直在琢磨「{theme}」{e}'],
    intro: [
      '之前为「{theme}」试过不少办法，后来开始用{name}，想把自己的感受记下来。',
      '朋友知道我在折腾「{theme}」，推荐了{name}，用了一段时间，说说自己的体会。',
      '说到「{theme}」，{scene}是我用{name}的主要时候，下面是我在意的几点。',
    ],
    point: ['✅ {point}，这是我当初选它的原因', '✅ {point}，{scene}正好用得上', '✅ {point}，是我挑它时看重的一点'],
    recap: '📌 划重点：{points}',
    caution: '每个人情况不同，感受因人而异，按需入手就好🙏',
    closing: ['你们平时是怎么做的？评论区一起聊聊吧👇', '你也有同样的小烦恼吗？欢迎来聊聊💗', '希望这篇对正在纠结的你有一点参考🫶'],
    titles: ['{short}帮了我大忙{e}', '{angle}｜说说我的{short}', '{theme}｜我的{short}心得', '用了{short}以后想说的话', '{theme}真心话｜{short}'],
    covers: ['{short}帮了大忙', '说说{short}', '{angle}真心话'],
    tags: ['真实分享', '经验分享', '好物心得'],
    brief: '真实生活中的人物情绪瞬间，柔和自然光',
  },
  B: {
    emoji: ['📝', '🔍', '📊', '🧪', '✍️'],
    hooks: ['{short}用了一段时间，来交作业啦{e}', '不吹不黑，聊聊{short}的真实感受{e}', '关于「{theme}」，这次认真用了{short}{e}'],
    intro: ['围绕「{theme}」，下面只说自己上手的感受，按使用顺序来。', '先把{name}的几个要点列出来，方便在做「{theme}」功课的你对照需求。', '{name}放进「{theme}」以后，我按上手顺序整理了一下：'],
    point: ['{i}️⃣ {point}：挑选时重点看的一项', '{i}️⃣ {point}：日常用得上的细节', '{i}️⃣ {point}：上手后留意到的地方'],
    recap: '📌 一句话总结：{points}',
    caution: '以上是我的个人体验，效果因人而异，请按自己的需求判断。',
    closing: ['个人感受仅供参考，理性种草～还想看哪款的用后感，留言告诉我📮', '以上都是个人体验，有问题评论区问我🙋', '你们用过吗？感受一样吗？评论区聊聊📌'],
    titles: ['{short}真实用后感', '{theme}｜{short}上手体验', '{short}值不值？说说我的感受', '{category}好物｜{short}用后感', '{short}要点整理'],
    covers: ['{short}用后感', '真实上手体验', '{short}要点整理'],
    tags: ['真实测评', '好物测评', '测评'],
    brief: '干净的测评风格，产品质感与细节特写，中性背景',
  },
  C: {
    emoji: ['☀️', '🌿', '✨', '☕️', '🌸'],
    hooks: ['{scene}，阳光刚刚好{e}', '记录一下{scene}的小日常{e}', '{scene}，慢慢来也很好{e}'],
    intro: [
      '这阵子的「{theme}」里，{name}成了常出现的那一件。',
      '把{name}放进「{theme}」以后，{scene}多了一点仪式感。',
      '「{theme}」里的小确幸，有时候就藏在一件称手的东西里，比如{name}。',
    ],
    point: ['{e} {point}，随手就能用上', '{e} {point}，{scene}也方便', '{e} {point}，是我喜欢它的地方'],
    recap: '🌿 记住这几点：{points}',
    caution: '适不适合，还是看自己的节奏和需要～',
    closing: ['你的日常里有这样一件小物吗？评论区告诉我💬', '愿你也能找到属于自己的生活节奏🌿', '把日子过成自己喜欢的样子吧✨'],
    titles: ['{scene}｜和{short}一起{e}', '{theme}｜{short}的日常', '{scene}常备{short}', '{category}小物｜{short}', '记录{short}陪我的日子'],
    covers: ['{scene}常备', '{short}的日常', '记录小日常'],
    tags: ['生活方式', '氛围感', '日常分享'],
    brief: '生活方式摄影，产品在真实精致的生活场景中被使用，温暖向往的氛围',
  },
};

/** Moments a theme speaks of, so a note is set where its theme happens; the last entry fits any theme. */
const SCENES: Array<[RegExp, string[]]> = [
  [/通勤|上班|早八|地铁|打工/u, ['通勤路上', '早八出门前']],
  [/护肤|保湿|面霜|干皮|敏感|补水|精华|面膜/u, ['洗完脸后', '睡前护肤时']],
  [/旅行|出游|野餐|露营|出差/u, ['出门旅行', '周末出游']],
  [/开学|宿舍|学生|考研|上课/u, ['宿舍里', '上课前']],
  [/熬夜|失眠|好眠|睡/u, ['睡前', '熬夜后的早上']],
  [/厨房|做饭|早餐|咖啡/u, ['做早餐时', '周末早晨']],
  [/办公|工位|加班/u, ['工位上', '午休时']],
  [/./u, ['日常出门', '午后时光', '周末早晨', '居家时']],
];

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

/** The stand-in angle when the product names none: the theme itself, a label of at most 8 characters, named in 「」 where a sentence uses it. */
function themeAngle(theme: string): string {
  return clipWords(theme, 8);
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
  const angle = ordered.length > 0 ? clipWords(ordered[index % ordered.length]!, 8) : themeAngle(theme);
  const points = product.selling_points.map(clean).filter(Boolean);
  // The last entry matches any theme: one always applies.
  const scene = rng.pick(SCENES.find(([pattern]) => pattern.test(theme))![1]);
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
  if (input.benchmarks.length > 0 && points.length > 0) body.push('', say(voice.recap, { points: points.slice(0, 2).join('、') }));
  if (cautious) body.push('', voice.caution);
  body.push('', say(rng.pick(voice.closing)));

  const tags = [
    short,
    tagOf(product.category),
    // A theme too long for a tag is left out rather than cut (#周末野餐带什么一杯 reads as a typo).
    ...(cp(clean(theme).replace(/\s/g, '')) <= 12 ? [tagOf(theme)] : []),
    // An angle cut from a long theme is no tag, like the theme itself.
    ...(ordered.length > 0 || angle === theme ? [tagOf(angle)] : []),
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

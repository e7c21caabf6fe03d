import type { BannedWordMatcher } from './banned-words.js';
import { coverHighlight, productRuns } from './cover.js';
import { fitCoverTitle, NOTE_LIMITS } from './limits.js';
import type { ImagePlanItem, ImageRole, Note, StrategyCode } from './schemas.js';
import { STRATEGY_GUIDES } from './strategies.js';
import { clipWords, length } from './text.js';

type MiddleRole = 'pain' | 'proof' | 'quality' | 'credit';
/** The roles whose image is the cover: it carries the cover title, every other a caption. */
const COVER_ROLES: ReadonlySet<ImageRole> = new Set(['hook', 'main']);
/** The order a board tells its story in: attention, problem, evidence, detail, trust, action. */
const NARRATIVE: MiddleRole[] = ['pain', 'proof', 'quality', 'credit'];

/**
 * Roles of a set's `imageCount` images. One image is the `main` image; otherwise the board opens
 * with `hook` and closes with `convert`, and the middle takes the strategy's most important
 * roles (repeating them, most important first, beyond the four there are), in narrative order.
 */
export function storyboardRoles(strategy: StrategyCode, imageCount: number): ImageRole[] {
  if (imageCount <= 0) return [];
  if (imageCount === 1) return ['main'];
  const { emphasis } = STRATEGY_GUIDES[strategy];
  const middleCount = imageCount - 2;
  const chosen = Array.from({ length: middleCount }, (_, i) => emphasis[i % emphasis.length]!);
  chosen.sort((a, b) => NARRATIVE.indexOf(a) - NARRATIVE.indexOf(b));
  return ['hook', ...chosen, 'convert'];
}

/**
 * What each role's picture is, with its framing, so a carousel is a sequence of different
 * shots rather than near-identical slides. `proof` is product-side evidence (texture, spec,
 * real use), never a before/after of skin or body: that would be fabricated efficacy evidence.
 */
const ROLE_DIRECTION: Record<ImageRole, string> = {
  main: 'cover image, medium shot: the product as the hero with one clear focal point; keep the upper third calm for a large headline',
  hook: 'cover image, medium or wide shot that stops the scroll: the product in its scene with one clear focal point; keep the upper third calm for a large headline',
  pain: 'wide or medium shot of the everyday situation this note is about, a relatable real moment; the product is not the focus yet',
  proof: 'close-up evidence on the product side: its texture or swatch, a specification detail, or hands using it for real; never a before/after comparison of skin or body, never a split screen',
  quality: 'macro close-up of the material, texture or craftsmanship of the product',
  credit: 'medium close-up of real hands holding the product or its packaging, an authentic, honest setting',
  convert: 'tidy closing composition of the product (and what comes in the box), inviting, with breathing room',
};

/** What no image of a set may show. */
const SET_RULES = 'No before/after comparisons, no medical or clinical imagery.';

/**
 * The set's one visual direction, decided once and written out in full into every frame's
 * brief: each frame is a separate call to a model that never sees the others, so "keep the same
 * people across the set" meant nothing to it. The setting is the writer's (the note's
 * `image_brief`, held to the banned words) or the theme's; light, palette and people are the
 * strategy's (strategies.ts `look`).
 */
export function visualDirection(strategy: StrategyCode, setting: string): string {
  const { light, palette, people } = STRATEGY_GUIDES[strategy].look;
  return `Visual direction of the whole set, the same in every frame: setting: ${setting}; light: ${light}; palette: ${palette}; people: ${people}.`;
}

/** The product in words, in every frame: its name and kind, and what it looks like when the team described it. */
function productLine(product: { name: string; category?: string | undefined; appearance?: string | null | undefined }): string {
  const kind = product.category?.trim() ? `${product.name} (${product.category.trim()})` : product.name;
  const look = product.appearance?.trim();
  return look ? `Product: ${kind}; what it looks like: ${look}.` : `Product: ${kind}.`;
}

/**
 * What no picture of a note may show, for the image models whose API takes a negative prompt
 * (the presets with `negativePrompt`, docs/providers.md). In Chinese: Wan, Qwen-Image and
 * Kolors read Chinese and English, and their documented examples are Chinese. Garbled lettering
 * and fake logos (the service draws the words itself), fabricated efficacy evidence (before/after,
 * clinical scenes), and the usual anatomy and product deformations. Well under DashScope's 500
 * characters.
 */
export const NEGATIVE_PROMPT = [
  '乱码文字、错乱的字母和数字、画面上的标题或字幕、水印、伪造或变形的 logo',
  '使用前后对比、分屏对比、医疗或临床场景、针头、伤口、皮肤病特写',
  '多余的手指或肢体、畸形的手、扭曲的五官、变形或错误的产品',
  '低清晰度、模糊、噪点、过度磨皮',
].join('，');

/** Internal labels a model sometimes returns as a caption: never printed on an image. */
const LABEL = /^(第\s*\d+\s*张|图\s*\d+|(hook|pain|proof|quality|credit|convert|main)\b|(痛点|卖点|证明|质感|背书|转化|封面|主图)\s*[·:：|｜-]?\s*$)|[·:：]\s*$/iu;

export interface StoryboardFrame {
  seq: number;
  role: ImageRole;
  /** What this image shows (role direction and framing, the note's shot for it, the set's look). */
  brief: string;
  /**
   * The line the service draws on the image when the task overlays text; a cover drawn from
   * the note also names its highlight (a phrase the note states) and the runs of the product
   * name its lines may not break (a line without them falls back to the title alone).
   */
  overlay: { kind: 'cover' | 'caption'; text: string; highlight?: string | null; keep?: string[] } | null;
}

/**
 * Shots that ask for what no picture of a note may show (contract-decisions §9, the prompt's
 * own rules): a before/after or side-by-side comparison is fabricated efficacy evidence, a
 * clinical scene a medical claim. The model is told so and writes them anyway.
 */
const FORBIDDEN_SHOT =
  /使用前后|用前用后|前后对比|对比(?:图|照|拼图)|(?:左右|上下|分屏)对比|分屏|拼图对比|before\s*(?:\/|and|&|vs\.?)?\s*after|split[-\s]?screen|side[-\s]by[-\s]side|医院|诊所|手术|针头|针管|伤口|临床|病床|clinic|hospital|surgery|syringe/iu;

/**
 * A model-written line as it may be drawn or sent (contract-decisions §9: held to the body's
 * banned words): auto-fix replacements applied; null when a soft_warn or hard_block word remains.
 * Warnings drop too: on the body an operator sees each one marked, but a word lettered on a
 * slide or read by an image model is seen by no one before it ships.
 */
function cleanLine(matcher: BannedWordMatcher, text: string): string | null {
  const checked = matcher.check(text);
  return checked.hits.length > 0 ? null : checked.text;
}

/**
 * A caption the model wrote for a frame, if it is copy that fits and breaks no word: trimmed,
 * one line, not a label, within the banned words (else the slide goes without a caption).
 */
export function usableCaption(caption: string | undefined, matcher: BannedWordMatcher): string | null {
  const line = (caption ?? '').replace(/\s+/g, ' ').trim();
  if (!line || LABEL.test(line)) return null;
  const clean = cleanLine(matcher, line);
  return clean && length(clean) <= NOTE_LIMITS.caption ? clean : null;
}

/** What opens a list item of a body: a bullet, a keycap or circled number, an emoji, "1." or "第一步：". */
const ITEM_MARK = /^(?:[\p{Extended_Pictographic}\u{FE0F}\u{20E3}\u{200D}\s•·\-—–]|[0-9０-９#*]+(?:\u{FE0F}?\u{20E3}|[.、)）](?![0-9０-９]))|[①-⑳]|第[一二三四五六七八九十\d]+(?:[步点条][：:、，,]?|[：:、，,]))+/u;
/** A sentence with its closing marks, so a question still reads as one. */
const SENTENCES = /[^。！？!?…~～]+[。！？!?…~～]*/gu;
const CLAUSE = /[，,：:；;、]/u;
/** A heading that introduces a piece (📌 划重点：…): the piece is what follows it. */
const HEADING = /^(?:划重点|敲黑板|一句话总结|总结|小结|重点|记住这几点|tips?)\s*[：:]\s*/iu;

/**
 * The pieces of information of a body, in posting order, as a carousel tells them (完读结构):
 * its list items (the points or steps) when it has any, else its sentences after the opening
 * line (the cover already carries the hook). Questions to the reader are no information.
 */
function bodyPieces(content: string): string[] {
  const lines = content.split('\n').map((l) => l.trim()).filter(Boolean);
  const items = lines.filter((l) => ITEM_MARK.test(l) && l.replace(ITEM_MARK, '').trim().length > 1);
  const source = items.length > 0 ? items : lines.slice(1).flatMap((l) => l.match(SENTENCES) ?? []);
  return source.map((piece) => piece.replace(ITEM_MARK, '').trim().replace(HEADING, '')).filter((piece) => piece.length > 1 && !/[？?]\s*$|评论区|留言/u.test(piece));
}

/**
 * A piece of the body as a caption: its leading clause (✅ 一键开盖，单手就能喝水 → 一键开盖)
 * when the whole does not fit, else its first words, never cut inside one; then held to the
 * caption rules like a model's caption.
 */
function pieceCaption(piece: string, matcher: BannedWordMatcher): string | null {
  const whole = piece.replace(/[\s\p{P}\p{Extended_Pictographic}\u{FE0F}]+$/u, '');
  const clause = whole.split(CLAUSE)[0]!.trim();
  const line = length(whole) <= NOTE_LIMITS.caption ? whole : length(clause) <= NOTE_LIMITS.caption && length(clause) > 1 ? clause : clipWords(clause, NOTE_LIMITS.caption);
  return usableCaption(line, matcher);
}

/**
 * The captions of a set's slides (the frames after the cover), in posting order: slide 2 the
 * body's first piece of information, slide 3 the next, and so on; a piece that breaks a word or
 * a rule is skipped, not drawn. Slides beyond the body's pieces get null (buildStoryboard then
 * draws the model's own caption for the frame, if usable).
 */
export function slideCaptions(content: string, slides: number, matcher: BannedWordMatcher): Array<string | null> {
  const captions = bodyPieces(content)
    .map((piece) => pieceCaption(piece, matcher))
    .filter((caption, i, all): caption is string => caption !== null && all.indexOf(caption) === i);
  return Array.from({ length: slides }, (_, i) => captions[i] ?? null);
}

/**
 * A shot or set look the model wrote, if it may be sent to the image model: no before/after,
 * split screen or clinical scene, and within the banned words; null when it is left out (the
 * frame's own role direction then stands alone, a neutral brief).
 */
export function usableShot(shot: string | undefined, matcher: BannedWordMatcher): string | null {
  const line = (shot ?? '').replace(/\s+/g, ' ').trim();
  if (!line || FORBIDDEN_SHOT.test(line)) return null;
  return cleanLine(matcher, line);
}

/** A cover title may be drawn unless a hard-blocked word remains (its warnings are marked on the note it belongs to). */
export function drawableCoverTitle(title: string, matcher: BannedWordMatcher): string | null {
  return matcher.check(title).status === 'hard_block' ? null : title;
}

/**
 * The board of one set, derived from the set's leading note (or, on the import track before any
 * text exists, from the theme alone). Each frame gets the note's plan for its role when there is
 * one (the shot and a caption written as copy), the role's framing, and the set's look; the cover
 * carries the note's cover title (already fitted whole: limits.ts fitCoverTitle). Frames without
 * a usable caption carry none. Pure: the same inputs always give the same board.
 */
export function buildStoryboard(opts: {
  strategy: StrategyCode;
  imageCount: number;
  note: (Pick<Note, 'title' | 'cover_title' | 'image_brief' | 'angle_label'> & { content?: string; image_plan?: readonly ImagePlanItem[] }) | null;
  productName: string;
  /** The product in words (category), so the picture shows the right kind of object. */
  productCategory?: string;
  /** What the product looks like (products.appearance): the only picture of it a model without a reference photo gets. */
  productAppearance?: string | null;
  sellingPoints: string[];
  theme: string;
  /** The roles in order, when the caller fixes them (fission at reference level high keeps the source's); else storyboardRoles. */
  roles?: readonly ImageRole[];
  /** The banned words that apply to the product: what the model wrote for the pictures is held to them. */
  matcher: BannedWordMatcher;
}): StoryboardFrame[] {
  const direction = visualDirection(opts.strategy, usableShot(opts.note?.image_brief, opts.matcher) ?? `a real everyday scene for ${opts.theme}`);
  const cover = drawableCoverTitle(fitCoverTitle(opts.note?.cover_title.trim() ?? '', opts.note?.title.trim() || opts.theme), opts.matcher);
  const plan = opts.note?.image_plan ?? [];
  const used = new Set<number>();
  const product = productLine({ name: opts.productName, category: opts.productCategory, appearance: opts.productAppearance });
  const roles = opts.roles ?? storyboardRoles(opts.strategy, opts.imageCount);
  const slides = roles.filter((role) => !COVER_ROLES.has(role)).length;
  const fromBody = slideCaptions(opts.note?.content ?? '', slides, opts.matcher);
  let slide = 0;
  const stated = `${opts.note?.title ?? ''}\n${opts.note?.content ?? ''}`;
  const keep = cover ? productRuns(cover, opts.productName) : [];
  return roles.map((role, i) => {
    // The plan's item for this frame: the same position when its role agrees, else the first unused one of the role.
    const k = plan[i]?.role === role && !used.has(i) ? i : plan.findIndex((p, j) => p.role === role && !used.has(j));
    if (k >= 0) used.add(k);
    const item = k >= 0 ? plan[k] : undefined;
    const shot = usableShot(item?.brief, opts.matcher);
    let overlay: StoryboardFrame['overlay'] = null;
    if (COVER_ROLES.has(role)) overlay = cover ? { kind: 'cover', text: cover, highlight: coverHighlight(cover, { stated, keep }), keep } : null;
    else {
      const caption = fromBody[slide] ?? usableCaption(item?.caption, opts.matcher);
      slide += 1;
      overlay = caption ? { kind: 'caption', text: caption } : null;
    }
    return {
      seq: i + 1,
      role,
      brief: [`${ROLE_DIRECTION[role]}.`, shot ? `Shot: ${shot}.` : '', product, direction, SET_RULES]
        .filter(Boolean)
        .join(' '),
      overlay,
    };
  });
}

import type { ImageRole, Note, StrategyCode } from './schemas.js';
import { STRATEGY_GUIDES } from './strategies.js';
import { clipWords } from './text.js';

type MiddleRole = 'pain' | 'proof' | 'quality' | 'credit';
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

const ROLE_DIRECTION: Record<ImageRole, string> = {
  main: 'cover image: a striking hero shot of the product with one clear focal point; keep the upper third calm for a headline',
  hook: 'cover image: a striking hero shot with one clear focal point that stops the scroll; keep the upper third calm for a headline',
  pain: 'the everyday frustration this note is about, shown as a relatable mood scene; the product is not the focus yet',
  proof: 'evidence: a close-up of the effect or result, or a split before/after composition',
  quality: 'detail: a macro shot of material, texture or craftsmanship of the product',
  credit: 'trust: real hands holding the product, its packaging shot neatly, an authentic reviewer setting',
  convert: 'closing image: the product in an inviting, tidy composition that makes the reader want to buy',
};

/**
 * Longest overlay line: image text must stay legible on a phone screen. Lines are cut between
 * words (clipWords): half a word drawn on an image reads as a typo.
 */
const COVER_MAX = 14;
const CAPTION_MAX = 14;

export interface StoryboardFrame {
  seq: number;
  role: ImageRole;
  /** What this image shows (role direction, the note's image brief, the strategy's look). */
  brief: string;
  /** The line the service draws on the image when the task overlays text. */
  overlay: { kind: 'cover' | 'caption'; text: string } | null;
}

/**
 * The board of one set, derived from the set's leading note (or, on the import track before any
 * text exists, from the theme alone). Pure: the same inputs always give the same board.
 */
export function buildStoryboard(opts: {
  strategy: StrategyCode;
  imageCount: number;
  note: Pick<Note, 'title' | 'cover_title' | 'image_brief' | 'angle_label'> | null;
  productName: string;
  sellingPoints: string[];
  theme: string;
  /** The roles in order, when the caller fixes them (fission at reference level high keeps the source's); else storyboardRoles. */
  roles?: readonly ImageRole[];
}): StoryboardFrame[] {
  const guide = STRATEGY_GUIDES[opts.strategy];
  const scene = opts.note?.image_brief.trim() || `${opts.productName}, theme: ${opts.theme}`;
  const cover = opts.note?.cover_title.trim() || opts.note?.title.trim() || opts.theme;
  let sellingIndex = 0;
  return (opts.roles ?? storyboardRoles(opts.strategy, opts.imageCount)).map((role, i) => {
    let overlay: StoryboardFrame['overlay'] = null;
    if (role === 'hook' || role === 'main') overlay = { kind: 'cover', text: clipWords(cover, COVER_MAX) };
    else if (role === 'pain' && opts.note?.angle_label.trim()) overlay = { kind: 'caption', text: clipWords(opts.note.angle_label, CAPTION_MAX) };
    else if (role === 'convert') overlay = { kind: 'caption', text: clipWords(opts.productName, CAPTION_MAX) };
    else if (role !== 'pain' && opts.sellingPoints.length > 0) {
      overlay = { kind: 'caption', text: clipWords(opts.sellingPoints[sellingIndex % opts.sellingPoints.length]!, CAPTION_MAX) };
      sellingIndex += 1;
    }
    return {
      seq: i + 1,
      role,
      brief: `${ROLE_DIRECTION[role]}. Scene: ${scene}. Look: ${guide.visualStyle}.`,
      overlay,
    };
  });
}

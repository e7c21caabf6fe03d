import { Type, type Static } from 'typebox';

/** A structured reply's JSON Schema as sent to a provider (`response_format.json_schema`). */
export interface JsonSchemaSpec {
  name: string;
  schema: Record<string, unknown>;
}

/**
 * The structured replies the generation pipeline asks providers for, and the inputs it hands
 * them as the call's intent (remote models read the prompt; the offline `local` provider reads
 * the intent). Shared with the provider layer: changing a shape here changes the contract with
 * every provider, `local` included.
 *
 * Strings carry no length limits in the schemas because OpenAI's strict structured outputs do
 * not accept `minLength`/`maxLength`; the pipeline trims and clips after validation instead.
 */

export const STRATEGIES = ['A', 'B', 'C'] as const;
export type StrategyCode = (typeof STRATEGIES)[number];

export const IMAGE_ROLES = ['hook', 'pain', 'proof', 'quality', 'credit', 'convert', 'main'] as const;
export type ImageRole = (typeof IMAGE_ROLES)[number];

/** One image of a note's plan: its role, the shot, and the line printed on it (copy, not a label). */
export const ImagePlanItemSchema = Type.Object(
  {
    role: Type.Enum(IMAGE_ROLES, { description: 'storyboard role, exactly as listed' }),
    brief: Type.String({ description: 'what this one image shows (framing, subject, action, setting), without any text in the image' }),
    caption: Type.String({ description: 'the line printed on this image, at most 12 characters, written as copy for the reader, not a label' }),
  },
  { additionalProperties: false },
);
export type ImagePlanItem = Static<typeof ImagePlanItemSchema>;

/** One note as a provider writes it. */
export const NoteSchema = Type.Object(
  {
    angle_label: Type.String({ description: 'short label of the angle this note takes, e.g. 熬夜党救星' }),
    title: Type.String({ description: 'title, at most 20 characters, may contain emoji' }),
    title_options: Type.Array(Type.String(), { description: 'two more titles of at most 20 characters: the service picks one that fits instead of cutting' }),
    content: Type.String({ description: 'plain-text body with line breaks and emoji, 300-800 characters, at most 1000' }),
    tags: Type.Array(Type.String({ description: 'topic tag without #' }), { minItems: 3, maxItems: 10 }),
    cover_title: Type.String({ description: 'cover headline drawn on the first image, at most 12 characters' }),
    cover_title_options: Type.Array(Type.String(), { description: 'two more cover headlines of at most 12 characters' }),
    image_brief: Type.String({ description: 'the look shared by all images of this note (people, place, light), without any text in the image' }),
    image_plan: Type.Array(ImagePlanItemSchema, { description: 'one item per image role listed in the prompt, in order (first note of a set only; the others leave it empty)' }),
  },
  { additionalProperties: false },
);
export type Note = Static<typeof NoteSchema>;

/**
 * One spec per key, built once: the provider layer compiles a validator per schema object
 * (3-5 ms of the event loop each), so a spec made anew for every call compiled one every call.
 */
export function memoizedSpec<A extends number[]>(build: (...args: A) => JsonSchemaSpec): (...args: A) => JsonSchemaSpec {
  const built = new Map<string, JsonSchemaSpec>();
  return (...args) => {
    const key = args.join(',');
    let spec = built.get(key);
    if (!spec) built.set(key, (spec = build(...args)));
    return spec;
  };
}

/** Reply of a `notes` call: exactly `count` notes for one strategy set. */
export const notesReplySchema = memoizedSpec((count: number): JsonSchemaSpec => ({
  name: 'notes',
  schema: Type.Object(
    { notes: Type.Array(NoteSchema, { minItems: count, maxItems: count }) },
    { additionalProperties: false },
  ) as unknown as Record<string, unknown>,
}));
export interface NotesReply {
  notes: Note[];
}

/** A reviewer's reject reason and the start of the note it rejected (null: rejected before excerpts were kept, or nothing was selected). */
export interface Rejection {
  reason: string;
  excerpt: string | null;
}

/** Input of a `notes` intent (generation of a set, or the rewrite of one blocked note). */
/** How an angle or a strategy did once posted: engagement against the accounts' medians. */
export interface PerformanceFigure {
  kind: 'angle' | 'strategy';
  key: string;
  posts: number;
  vs_median: number;
}

export interface NotesIntentInput {
  strategy: StrategyCode;
  /** Human name of the strategy, e.g. 痛点共鸣. */
  strategy_name: string;
  count: number;
  /** Stable per task, generation and set, so `local` answers the same on a re-run. */
  seed: string;
  product: {
    name: string;
    category: string;
    selling_points: string[];
    style_tone: string | null;
    text_angles: string[];
    custom_prompt: string | null;
    /** What the product looks like (absent where an older caller built the input). */
    appearance?: string | null;
  };
  theme: string;
  benchmarks: Array<{ highlights: string; features: Record<string, unknown> | null }>;
  preferences: {
    recent_preference: string;
    reject_reasons: string[];
    /** The reject reasons with an excerpt of the note each rejected (absent in older snapshots). */
    rejections?: Rejection[];
    style_examples: string[];
    /** Title and opening of notes reviewers approved (absent in older snapshots). */
    approved_openings?: string[];
    preferred_angles?: string[];
    preferred_strategy?: StrategyCode | null;
    /** What worked once posted (contract-decisions §11), from 3 published posts on. */
    performance?: { posts: number; best: PerformanceFigure[]; worst: PerformanceFigure[] };
  };
  /** Words of the workspace's banned-word library the text must not contain. */
  avoid_words: string[];
  /** The account the notes are meant for (contract-decisions §11): its positioning and voice. */
  account?: { name: string; persona: string | null };
  /** The storyboard roles of the set's images, planned by its first note (empty: no images). */
  image_roles?: ImageRole[];
  /**
   * Present for an automatic rewrite: of a note that hit hard_block words or broke a length limit
   * (problems: what to fix, as the model is told), or of one whose judge found claims the product
   * profile does not back (unsupported_claims, as the judge named them).
   */
  rewrite?: { note: Note; blocked_words: string[]; problems?: string[]; unsupported_claims?: string[] };
}

const dimension = (max: number) => Type.Integer({ minimum: 0, maximum: max });

/**
 * Reply of a `score` call (the LLM judge): one entry per text of the set, by index. The verdict
 * is not asked for: it follows from the total and the pass line, so it always agrees with it.
 */
export const ScoreReplySchema = Type.Object(
  {
    scores: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0 }),
          issues: Type.Array(Type.String(), { description: 'the problems found, most serious first, written before scoring (may be empty)' }),
          unsupported_claims: Type.Array(Type.String(), {
            description: 'numbers, durations, test results, comparisons, certifications, ingredients or effects the text states that the product facts do not back; empty when none',
          }),
          title: dimension(25),
          emotion: dimension(25),
          selling: dimension(25),
          keyword: dimension(20),
          compliance: dimension(5),
          summary: Type.String({ description: 'one or two sentences: strengths and what to improve' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ScoreReply = Static<typeof ScoreReplySchema>;
export const scoreReplySpec: JsonSchemaSpec = { name: 'text_scores', schema: ScoreReplySchema as unknown as Record<string, unknown> };

export interface ScoreIntentInput {
  product: { name: string; category?: string; selling_points: string[] };
  theme: string;
  texts: Array<{
    index: number;
    title: string;
    content: string;
    tags: string[];
    /** Facts the service computed, handed to the judge so it does not have to count. */
    facts?: { title_length: number; cover_title: string; cover_title_length: number; body_length: number; tag_count: number; banned_words: string[] };
  }>;
}

/**
 * Input of an image call (`generateImage` with intent kind `free`): one storyboard frame. The
 * prompt asks for a text-free picture; the service draws cover titles and captions itself.
 */
export interface StoryboardImageInput {
  purpose: 'storyboard-image';
  strategy: StrategyCode;
  role: ImageRole;
  seq: number;
  seed: string;
  product_name: string;
  theme: string;
  brief: string;
  /** The cover title or caption the service will overlay (for layout only; never draw it twice). */
  overlay: string | null;
  has_reference_image: boolean;
}

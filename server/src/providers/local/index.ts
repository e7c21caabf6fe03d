import type { LocalImageFailures } from '../../config.js';
import { IMAGE_ROLES, STRATEGIES, type ImageRole, type NotesIntentInput, type ScoreIntentInput, type ScoreReply, type StoryboardImageInput } from '../../content/schemas.js';
import { heuristicScore } from '../../content/scoring.js';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH } from '../../images/normalize.js';
import { checkAgainst } from '../structured.js';
import { ProviderError, type ImageRequest, type ImageResult, type Provider, type ProviderIntent, type TextRequest, type TextResult, type VisionRequest } from '../types.js';
import { renderCardImage } from './cards.js';
import { composeFission, isFissionInput } from './fission.js';
import { composeNote, composeNotes } from './notes.js';
import { Random, seedOf } from './random.js';
import { fillSchema } from './schema-fill.js';

const MODEL = 'local-offline-1';

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null;

function asNotesInput(input: unknown, seed: string): NotesIntentInput {
  const given = isObject(input) ? input : {};
  const product = isObject(given.product) ? given.product : {};
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  return {
    strategy: given.strategy === 'B' || given.strategy === 'C' ? given.strategy : 'A',
    strategy_name: typeof given.strategy_name === 'string' ? given.strategy_name : '',
    count: Number.isInteger(given.count) && given.count > 0 ? Math.min(given.count, 30) : 1,
    seed,
    product: {
      name: typeof product.name === 'string' ? product.name : '',
      category: typeof product.category === 'string' ? product.category : '',
      selling_points: strings(product.selling_points),
      style_tone: typeof product.style_tone === 'string' ? product.style_tone : null,
      text_angles: strings(product.text_angles),
      custom_prompt: typeof product.custom_prompt === 'string' ? product.custom_prompt : null,
    },
    theme: typeof given.theme === 'string' ? given.theme : '',
    benchmarks: Array.isArray(given.benchmarks) ? given.benchmarks.filter(isObject).map((b) => ({ highlights: String(b.highlights ?? ''), features: isObject(b.features) ? b.features : null })) : [],
    preferences: {
      recent_preference: typeof given.preferences?.recent_preference === 'string' ? given.preferences.recent_preference : '',
      reject_reasons: strings(given.preferences?.reject_reasons),
      style_examples: strings(given.preferences?.style_examples),
    },
    avoid_words: strings(given.avoid_words),
    // The roles the set's images take: without them the note plans no image, and its slides go uncaptioned.
    image_roles: strings(given.image_roles).filter((role): role is ImageRole => (IMAGE_ROLES as readonly string[]).includes(role)),
    rewrite: isObject(given.rewrite) && isObject(given.rewrite.note) ? (given.rewrite as NotesIntentInput['rewrite']) : undefined,
  };
}

/** The judge's reply: the deterministic scorer's dimensions and summary, in the judge schema's shape. */
function scoreReply(input: Partial<ScoreIntentInput>): ScoreReply {
  return {
    scores: (input.texts ?? []).map((text) => {
      const { score, summary } = heuristicScore({
        title: text.title,
        content: text.content,
        tags: text.tags,
        productName: input.product?.name ?? '',
        sellingPoints: input.product?.selling_points ?? [],
        theme: input.theme ?? '',
        bannedHits: [],
      });
      return { index: text.index, issues: [], unsupported_claims: [], title: score.title, emotion: score.emotion, selling: score.selling, keyword: score.keyword, compliance: score.compliance, summary };
    }),
  };
}

/** The reply written for its intent, or undefined where no writer knows the intent's shape. */
function writtenReply(intent: ProviderIntent, seed: string): unknown {
  if (intent.kind === 'fission' && isFissionInput(intent.input)) return composeFission(intent.input);
  if (intent.kind === 'notes') return composeNotes(asNotesInput(intent.input, seed));
  if (intent.kind === 'score') return scoreReply(isObject(intent.input) ? (intent.input as Partial<ScoreIntentInput>) : {});
  return undefined;
}

/**
 * The built-in offline provider (contract-decisions §1): no network, any key string accepted,
 * the same answer for the same intent every time. Notes, scores and fission plans are written
 * for their intent; other structured replies are filled from their schema; images are rendered
 * cards. Every structured reply is checked against the requested schema like a remote model's,
 * and a written reply that does not fit is an error, not silently replaced: it means a writer
 * fell behind a schema change, which the tests must see.
 *
 * `imageFailures` (LOCAL_PROVIDER_IMAGE_FAILURES) is the one way to see it fail: the first
 * `count` image calls of this instance (one per process) are refused with a provider error, so
 * tests and demos can show failed images and their retry without a remote provider. A task's
 * images are seeded `task:…` and a fission's `fission:…` (their ledger prefixes), which is how
 * `origin` tells them apart.
 */
export class LocalProvider implements Provider {
  readonly label = 'local' as const;
  readonly models = { text: MODEL, vision: MODEL, image: MODEL };

  async listModels(): Promise<string[]> {
    return [MODEL];
  }
  /** The cards it draws show the product photo when one is given. */
  readonly referenceImages = 1;
  private imageFailuresLeft: number;

  constructor(private readonly options: { imageFailures?: LocalImageFailures } = {}) {
    this.imageFailuresLeft = options.imageFailures?.count ?? 0;
  }

  async generateText(request: TextRequest): Promise<TextResult> {
    const seed = seedOf(request.intent.input, `${request.system}\n${request.prompt}`);
    let json = writtenReply(request.intent, seed);
    if (json === undefined && request.schema) {
      const notesInput = asNotesInput(request.intent.input, seed);
      json = fillSchema(request.schema.schema, {
        rng: new Random(`${seed}/${request.intent.kind}`),
        subject: notesInput.product.name || '这款产品',
        note: (i) => composeNote({ ...notesInput, strategy: STRATEGIES[i % STRATEGIES.length]! }, { index: i }),
      });
    }
    if (request.schema) {
      const checked = checkAgainst(request.schema, json);
      if (!checked.ok) throw new ProviderError('bad_output', `local provider's ${request.intent.kind} reply does not match the "${request.schema.name}" schema (${checked.reason})`, 'local');
    }
    const text = json === undefined ? this.freeText(request) : JSON.stringify(json);
    if (request.onDelta) for (const chunk of text.match(/[\s\S]{1,24}/g) ?? []) request.onDelta(chunk);
    return json === undefined ? { text, model: MODEL } : { text, json, model: MODEL };
  }

  async analyzeImage(request: VisionRequest): Promise<TextResult> {
    const { onDelta: _ignored, ...rest } = request as TextRequest;
    return this.generateText({ ...rest, intent: request.intent });
  }

  async generateImage(request: ImageRequest): Promise<ImageResult> {
    const input = (isObject(request.intent.input) ? request.intent.input : {}) as Partial<StoryboardImageInput>;
    const seed = seedOf(request.intent.input, request.prompt);
    this.injectImageFailure(seed);
    // Drawing the card is this provider's work: it holds the caller's slot like a remote call.
    const inSlot = request.slot ?? ((work) => work());
    const card = await inSlot(() =>
      renderCardImage(
        {
          role: typeof input.role === 'string' ? input.role : 'main',
          strategy: typeof input.strategy === 'string' ? input.strategy : 'A',
          seq: typeof input.seq === 'number' ? input.seq : 1,
          productName: typeof input.product_name === 'string' ? input.product_name : '',
          theme: typeof input.theme === 'string' ? input.theme : '',
          reference: request.referenceImages?.[0],
        },
        new Random(`${seed}/image`),
        { width: request.width ?? DEFAULT_WIDTH, height: request.height ?? DEFAULT_HEIGHT, aigc: request.aigc },
      ),
    );
    return { ...card, model: MODEL };
  }

  private injectImageFailure(seed: string): void {
    const failures = this.options.imageFailures;
    if (!failures || this.imageFailuresLeft === 0) return;
    if (failures.origin && !seed.startsWith(`${failures.origin}:`)) return;
    this.imageFailuresLeft -= 1;
    const nth = failures.count - this.imageFailuresLeft;
    throw new ProviderError('unavailable', `local provider: injected image failure ${nth} of ${failures.count} (LOCAL_PROVIDER_IMAGE_FAILURES)`, 'local');
  }

  private freeText(request: TextRequest): string {
    const input = asNotesInput(request.intent.input, seedOf(request.intent.input, request.prompt));
    const note = composeNote(input, { index: 0 });
    return `${note.title}\n\n${note.content}`;
  }
}

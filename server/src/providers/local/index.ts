import type { NotesIntentInput, ScoreIntentInput, StoryboardImageInput } from '../../generation/schemas.js';
import { heuristicScore } from '../../generation/scoring.js';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, normalizeImage } from '../../images/normalize.js';
import { checkAgainst } from '../structured.js';
import { ProviderError, type ImageRequest, type ImageResult, type JsonSchemaSpec, type Provider, type ProviderIntent, type TextRequest, type TextResult, type VisionRequest } from '../types.js';
import { renderCard } from './cards.js';
import { composeFission, isFissionInput } from './fission.js';
import { composeNote, composeNotes } from './notes.js';
import { Random, seedOf } from './random.js';
import { fillSchema, pruneToSchema } from './schema-fill.js';

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
    rewrite: isObject(given.rewrite) && isObject(given.rewrite.note) ? (given.rewrite as NotesIntentInput['rewrite']) : undefined,
  };
}

/** The reply a remote model would give, built from the intent; then checked like theirs. */
function answer(intent: ProviderIntent, seed: string, schema?: JsonSchemaSpec): unknown {
  if (intent.kind === 'fission' && isFissionInput(intent.input)) return composeFission(intent.input);
  const rng = new Random(`${seed}/${intent.kind}`);
  const notesInput = asNotesInput(intent.input, seed);
  const subject = notesInput.product.name || '这款产品';
  switch (intent.kind) {
    case 'notes':
      return composeNotes(notesInput);
    case 'score': {
      const input = intent.input as ScoreIntentInput;
      return {
        scores: (input.texts ?? []).map((text) => {
          const scored = heuristicScore({
            title: text.title,
            content: text.content,
            tags: text.tags,
            productName: input.product?.name ?? '',
            sellingPoints: input.product?.selling_points ?? [],
            theme: input.theme ?? '',
            bannedHits: [],
          });
          const { title, emotion, selling, keyword, compliance } = scored.score;
          return { index: text.index, title, emotion, selling, keyword, compliance, verdict: scored.verdict, summary: scored.summary };
        }),
      };
    }
    default:
      if (!schema) return undefined;
      return fillSchema(schema.schema, { rng, subject, note: (i) => composeNote({ ...notesInput, strategy: (['A', 'B', 'C'] as const)[i % 3]! }, { index: i }) });
  }
}

/**
 * The built-in offline provider (contract-decisions §1): no network, any key string accepted,
 * the same answer for the same intent every time. Notes and scores are written for their
 * intent; other structured replies are filled from their schema; images are rendered cards.
 */
export class LocalProvider implements Provider {
  readonly label = 'local' as const;

  async generateText(request: TextRequest): Promise<TextResult> {
    const seed = seedOf(request.intent.input, `${request.system}\n${request.prompt}`);
    let json = answer(request.intent, seed, request.schema);
    if (request.schema) json = pruneToSchema(json, request.schema.schema);
    if (request.schema && !checkAgainst(request.schema, json).ok) {
      // A shape the writers above do not produce (a changed schema): fill it generically.
      const notesInput = asNotesInput(request.intent.input, seed);
      json = fillSchema(request.schema.schema, { rng: new Random(seed), subject: notesInput.product.name || '这款产品', note: (i) => composeNote(notesInput, { index: i }) });
    }
    if (request.schema) {
      const checked = checkAgainst(request.schema, json);
      if (!checked.ok) throw new ProviderError('invalid_output', `local provider could not produce output for the "${request.schema.name}" schema (${checked.reason})`, 'local');
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
    const png = await renderCard(
      {
        role: typeof input.role === 'string' ? input.role : 'main',
        strategy: typeof input.strategy === 'string' ? input.strategy : 'A',
        seq: typeof input.seq === 'number' ? input.seq : 1,
        productName: typeof input.product_name === 'string' ? input.product_name : '',
        theme: typeof input.theme === 'string' ? input.theme : '',
        reference: request.referenceImage,
      },
      new Random(`${seed}/image`),
    );
    const normalized = await normalizeImage(png, { width: request.width ?? DEFAULT_WIDTH, height: request.height ?? DEFAULT_HEIGHT });
    return { ...normalized, model: MODEL };
  }

  private freeText(request: TextRequest): string {
    const input = asNotesInput(request.intent.input, seedOf(request.intent.input, request.prompt));
    const note = composeNote(input, { index: 0 });
    return `${note.title}\n\n${note.content}`;
  }
}

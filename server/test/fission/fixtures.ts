import sharp from 'sharp';
import type { ServerResponse } from 'node:http';
import { waitFor } from '../generation/helpers.js';
import type { TestServer } from '../helpers/server.js';
import { chatReply, json, startFakeProvider, streamChat, type FakeProvider, type RecordedRequest } from '../providers/fake-provider.js';
import { ok } from '../tasks/fixtures.js';

export const HELPER_KEYS = ['_score', '_passed', '_block'];

/** The stored image rows of a fission's set (its note of `seq`), by seq. */
export function imagesOfSet(server: TestServer, fissionId: number, seq: number) {
  return server.ctx.db
    .selectFrom('image_candidates')
    .innerJoin('text_candidates', 'text_candidates.id', 'image_candidates.note_id')
    .selectAll('image_candidates')
    .where('text_candidates.fission_id', '=', fissionId)
    .where('text_candidates.slot', '=', seq - 1)
    .orderBy('image_candidates.seq')
    .execute();
}

/** Polls the fission until the pipeline has settled it (reading never changes it). */
export async function settledFission(server: TestServer, token: string, id: number): Promise<any> {
  return waitFor(async () => {
    const fission = await ok(server, 'GET', `/fission/${id}`, token);
    return fission.status === 'generating' ? undefined : fission;
  });
}

export async function notesOf(server: TestServer, token: string, id: number): Promise<any> {
  return ok(server, 'GET', `/fission/${id}/notes`, token);
}

export async function download(server: TestServer, token: string, id: number): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(`${server.url}/api/v1/fission/${id}/download`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** Every key of a JSON value, at any depth. */
export function keysDeep(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysDeep(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      keysDeep(item, into);
    }
  }
  return into;
}

/** The storage key inside a signed file link. */
export const keyOfUrl = (url: string) => new URL(url, 'http://x').pathname.split('/').pop()!;

export type CallKind = 'notes' | 'score' | 'fission' | 'image' | 'other';

export interface FakeBehaviour {
  /** Content of fission package i (0-based); defaults to a clean note. */
  content?: (i: number) => string;
  /** Replaces fields of fission package i (title, tags, dimension…). */
  package?: (i: number) => Record<string, unknown>;
  /** Judge scores of text index i of a `text_scores` call. */
  judge?: (i: number) => { title: number; emotion: number; selling: number; keyword: number; compliance: number };
  /** An HTTP status to fail an image request with, by its prompt. */
  failImage?: (prompt: string) => number | undefined;
  /** An HTTP status to fail the fission call with. */
  failFission?: number;
  /** Called with every image prompt before it is answered. */
  onImage?: (prompt: string) => void;
}

export interface FakeOpenAI {
  baseUrl: string;
  provider: FakeProvider;
  behaviour: FakeBehaviour;
  calls(kind?: CallKind): RecordedRequest[];
  kindOf(req: RecordedRequest): CallKind;
  close(): Promise<void>;
}

const cleanContent = (i: number) =>
  `换季皮肤干到起皮真的崩溃😭\n第${i + 1}个角度：这款面霜质地清爽，48小时保湿，敏感肌可用！\n早晚各一次，上脸很舒服✨\n你们换季有什么护肤烦恼？评论区聊聊🥰`;

const highScore = () => ({ title: 22, emotion: 21, selling: 23, keyword: 17, compliance: 5 });

function promptOf(req: RecordedRequest): string {
  if (typeof req.body?.prompt === 'string') return req.body.prompt;
  const messages = (req.body?.messages ?? []) as Array<{ content: unknown }>;
  return messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}

/**
 * A real OpenAI-compatible HTTP server for the fission tests (startFakeProvider records every
 * request): `notes` and `text_scores` replies for the source task's generation and the judge,
 * `fission` replies sized from the requested schema with markers `[s<set>-<role>]` in the image
 * plan (so a test can fail chosen images by their prompt), and a distinct PNG per image call.
 */
export async function startFakeOpenAI(behaviour: FakeBehaviour = {}): Promise<FakeOpenAI> {
  const provider = await startFakeProvider();
  const fake: FakeOpenAI = {
    baseUrl: `${provider.origin}/v1`,
    provider,
    behaviour,
    calls: (kind) => provider.requests.filter((r) => !kind || fake.kindOf(r) === kind),
    kindOf(req) {
      if (req.path.endsWith('/images/generations')) return 'image';
      const name = req.body?.response_format?.json_schema?.name;
      return name === 'notes' ? 'notes' : name === 'text_scores' ? 'score' : name === 'fission' ? 'fission' : 'other';
    },
    close: () => provider.close(),
  };
  let images = 0;
  provider.handle(async (req, res: ServerResponse) => {
    const b = fake.behaviour;
    const kind = fake.kindOf(req);
    const prompt = promptOf(req);
    if (kind === 'image') {
      b.onImage?.(prompt);
      const failure = b.failImage?.(prompt);
      if (failure) return json(res, failure, { error: { message: 'fake image failure' } });
      images += 1;
      const png = await sharp({ create: { width: 48, height: 64, channels: 3, background: { r: (images * 37) % 256, g: (images * 91) % 256, b: 120 } } }).png().toBuffer();
      return json(res, 200, { created: 1, data: [{ b64_json: png.toString('base64') }] });
    }
    const schema = req.body?.response_format?.json_schema?.schema;
    // The pipeline streams notes (text_delta events); everything else is one reply.
    const reply = (value: unknown) => (req.body?.stream ? streamChat(res, [JSON.stringify(value)]) : json(res, 200, chatReply(JSON.stringify(value))));
    if (kind === 'notes') {
      const count: number = schema?.properties?.notes?.minItems ?? 1;
      const notes = Array.from({ length: count }, (_, i) => ({
        angle_label: `来源${i + 1}`,
        title: `换季护肤｜${i + 1}个补水秘诀✨`,
        title_options: [],
        content: cleanContent(i),
        tags: ['换季护肤', '补水', '面霜', '好物推荐', '敏感肌'],
        cover_title: '换季补水',
        cover_title_options: [],
        image_brief: '清晨窗边，女生手拿面霜，柔和自然光',
        image_plan: [],
      }));
      return reply({ notes });
    }
    if (kind === 'score') {
      const indexes = [...prompt.matchAll(/^Text (\d+):/gm)].map((m) => Number(m[1]));
      const scores = indexes.map((index) => ({ index, issues: [], unsupported_claims: [], ...(b.judge ?? highScore)(index), summary: `评审${index}` }));
      return reply({ scores });
    }
    if (kind === 'fission') {
      if (b.failFission) return json(res, b.failFission, { error: { message: 'fake fission failure' } });
      const count: number = schema.properties.packages.minItems;
      const perSet: number = schema.properties.packages.items.properties.image_plan.minItems;
      // The roles the prompt lists for each package, in order.
      const roles = [...prompt.matchAll(/image_plan：正好 \d+ 张图，角色依次为：(.+)$/gm)].map((m) => m[1]!.split(', '));
      const packages = Array.from({ length: count }, (_, i) => ({
        dimension: `维度${i + 1}`,
        angle_label: `角度${i + 1}`,
        title: `换季护肤｜第${i + 1}套补水方案💧`,
        title_options: [],
        content: (b.content ?? cleanContent)(i),
        tags: ['换季护肤', '补水', '面霜', '敏感肌', `第${i + 1}套`],
        cover_title: `补水方案${i + 1}`,
        cover_title_options: [],
        image_brief: '明亮浴室，柔和晨光',
        image_plan: Array.from({ length: perSet }, (_, j) => ({ role: roles[i]?.[j] ?? 'hook', brief: `[s${i + 1}-${roles[i]?.[j] ?? 'hook'}] 第${j + 1}张`, caption: `补水第${j + 1}步` })),
        ...b.package?.(i),
      }));
      return reply({ packages });
    }
    return json(res, 404, { error: { message: `unexpected ${req.method} ${req.path}` } });
  });
  return fake;
}

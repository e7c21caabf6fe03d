import sharp from 'sharp';
import { json, nowIso } from '../../src/db/codec.js';
import type { TaskStatus } from '../../src/db/schema.js';
import type { TestServer } from '../helpers/server.js';

export const API = '/api/v1';

export interface Workspace {
  token: string;
  workspaceId: number;
  productId: number;
}

export async function ok<T = any>(server: TestServer, method: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await server.request(method, `${API}${path}`, { token, ...(body === undefined ? {} : { body }) });
  if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
  return res.body.data as T;
}

/** The admin's current workspace with a `local` provider key and one product. */
export async function workspaceWithProduct(server: TestServer, opts: { apiKey?: boolean; product?: Record<string, unknown> } = {}): Promise<Workspace> {
  const token = await server.adminToken();
  const me = await ok(server, 'GET', '/auth/me', token);
  if (opts.apiKey !== false) await ok(server, 'POST', '/api-keys', token, { provider: 'local', api_key: 'local-test-key' });
  const product = await ok(server, 'POST', '/products', token, {
    name: '云朵保湿霜',
    category: '护肤',
    source: 'custom',
    selling_points: ['48小时保湿', '敏感肌可用'],
    ...opts.product,
  });
  return { token, workspaceId: me.current_workspace_id, productId: product.id };
}

/** A second workspace of the admin (with key and product) and a token acting in it. */
export async function otherWorkspace(server: TestServer): Promise<Workspace> {
  const admin = await server.adminToken();
  const slug = `other-${Math.random().toString(36).slice(2, 8)}`;
  const ws = await ok(server, 'POST', '/workspaces', admin, { name: 'Other', slug });
  const switched = await ok(server, 'POST', '/workspaces/switch', admin, { workspace_id: ws.id });
  const token = switched.token as string;
  await ok(server, 'POST', '/api-keys', token, { provider: 'local', api_key: 'other-test-key' });
  const product = await ok(server, 'POST', '/products', token, { name: '别家产品', category: '家居', source: 'custom' });
  // Switching gave the admin a new token for the other workspace; the first one stays valid.
  return { token, workspaceId: ws.id, productId: product.id };
}

/**
 * Empties the workspace's banned-word library, the legal baseline it started with included
 * (an admin's token: baseline words are locked), for a test whose subject is words it adds itself.
 */
export async function emptyBannedWords(server: TestServer, adminToken: string): Promise<void> {
  for (;;) {
    const page = await ok<{ items: Array<{ id: number }> }>(server, 'GET', '/banned-words?page_size=100', adminToken);
    if (page.items.length === 0) return;
    await ok(server, 'POST', '/banned-words/bulk-delete', adminToken, { ids: page.items.map((w) => w.id) });
  }
}

export async function createTask(server: TestServer, ws: Workspace, body: Record<string, unknown> = {}) {
  return ok(server, 'POST', '/tasks', ws.token, { product_id: ws.productId, theme: '秋冬换季护肤', text_count: 3, image_count: 2, track: 'ai', ...body });
}

export async function setStatus(server: TestServer, taskId: number, status: TaskStatus) {
  await server.ctx.db.updateTable('tasks').set({ status }).where('id', '=', taskId).execute();
}

let pngCache: Buffer | undefined;
async function png(): Promise<Buffer> {
  pngCache ??= await sharp({ create: { width: 30, height: 40, channels: 3, background: '#f0c0a0' } }).png().toBuffer();
  return pngCache;
}

/**
 * Candidates as the generation pipeline would have stored them (first generation): per set
 * A, B, C two texts and two images. `blocked` marks the second text of set A hard_block.
 */
export async function seedCandidates(server: TestServer, ws: Workspace, taskId: number) {
  const { db, storage } = server.ctx;
  const now = nowIso(server.clock.now());
  const file = await storage.put(await png(), { contentType: 'image/png', extension: 'png' });
  const texts: number[] = [];
  const images: number[] = [];
  let slot = 0;
  for (const strategy of ['A', 'B', 'C'] as const) {
    for (let i = 0; i < 2; i++) {
      const blocked = strategy === 'A' && i === 1;
      const row = await db
        .insertInto('text_candidates')
        .values({
          workspace_id: ws.workspaceId,
          task_id: taskId,
          generation: 1,
          slot: slot++,
          strategy,
          angle_label: `角度${strategy}${i}`,
          title: `标题${strategy}${i}`,
          content: `正文${strategy}${i}`,
          tags: json(['护肤']),
          cover_title: '封面',
          image_brief: '画面',
          source: 'ai',
          score: json({ title: 20, emotion: 20, selling: 20, keyword: 15, compliance: 5, total: 80 }),
          score_total: 80,
          banned_word_status: blocked ? 'hard_block' : 'pass',
          banned_hits: json([]),
          is_selected: false,
          verdict: '通过',
          summary: '',
          edited: false,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      texts.push(row.id);
      const image = await db
        .insertInto('image_candidates')
        .values({
          workspace_id: ws.workspaceId,
          task_id: taskId,
          generation: 1,
          strategy,
          role: i === 0 ? 'hook' : 'convert',
          seq: i + 1,
          file_key: file.key,
          mime: 'image/png',
          prompt: 'p',
          is_selected: false,
          is_regen: false,
          ai_visual_score: null,
          ai_visual_note: null,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      images.push(image.id);
    }
  }
  await db.updateTable('tasks').set({ generation: 1, status: 'pending_selection' }).where('id', '=', taskId).execute();
  return { texts, images };
}

export function signalsOf(server: TestServer, taskId: number) {
  return server.ctx.db.selectFrom('preference_signals').selectAll().where('task_id', '=', taskId).orderBy('id').execute();
}

import sharp from 'sharp';
import { json, nowIso } from '../../src/db/codec.js';
import type { TaskStatus } from '../../src/db/schema.js';
import type { TestServer, TestWorld } from '../helpers/server.js';

/**
 * Rows the generation pipeline would write, inserted directly, so review and delivery can be
 * tested in every state (approved, pending_review, …) without running generations first.
 */

export async function workspaceOf(server: TestServer, token: string): Promise<number> {
  const me = await server.request('GET', '/api/v1/auth/me', { token });
  return me.body.data.current_workspace_id as number;
}

export async function seedProduct(server: TestWorld, workspaceId: number, name = '轻盈防晒霜'): Promise<number> {
  const now = nowIso(server.clock.now());
  const row = await server.ctx.db
    .insertInto('products')
    .values({
      workspace_id: workspaceId,
      name,
      category: 'beauty',
      source: 'custom',
      selling_points: json(['不油腻']),
      style_tone: null,
      text_angles: json([]),
      custom_prompt: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function seedTask(
  server: TestWorld,
  opts: { workspaceId: number; productId: number; operatorId: number; status: TaskStatus; theme?: string },
): Promise<number> {
  const now = nowIso(server.clock.now());
  const row = await server.ctx.db
    .insertInto('tasks')
    .values({
      workspace_id: opts.workspaceId,
      product_id: opts.productId,
      operator_id: opts.operatorId,
      theme: opts.theme ?? '夏日通勤',
      text_count: 3,
      image_count: 2,
      track: 'ai',
      status: opts.status,
      need_product_image: false,
      overlay_text: true,
      generation: 1,
      progress: json(null),
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

let slot = 0;

/** Dimension values within the contract's maxima that add up to `total`. */
function scoreFor(total: number) {
  let left = total;
  const take = (max: number) => {
    const v = Math.min(max, left);
    left -= v;
    return v;
  };
  return { title: take(25), emotion: take(25), selling: take(25), keyword: take(20), compliance: take(5), total };
}

export async function seedText(
  server: TestWorld,
  task: { id: number; workspaceId: number },
  opts: {
    strategy: 'A' | 'B' | 'C' | null;
    total?: number;
    selected?: boolean;
    angle?: string;
    title?: string;
    content?: string;
    tags?: string[];
    hardBlock?: string;
    generation?: number;
  },
): Promise<number> {
  const now = nowIso(server.clock.now());
  const total = opts.total ?? 80;
  const row = await server.ctx.db
    .insertInto('text_candidates')
    .values({
      workspace_id: task.workspaceId,
      task_id: task.id,
      generation: opts.generation ?? 1,
      slot: slot++,
      strategy: opts.strategy,
      angle_label: opts.angle ?? `角度${opts.strategy ?? '?'}`,
      title: opts.title ?? `标题${opts.strategy ?? ''}`,
      content: opts.content ?? '正文内容',
      tags: json(opts.tags ?? ['防晒', '通勤']),
      cover_title: '封面',
      image_brief: '画面',
      source: 'ai',
      score: json(scoreFor(total)),
      score_total: total,
      banned_word_status: opts.hardBlock ? 'hard_block' : 'pass',
      banned_hits: json(opts.hardBlock ? [{ word: opts.hardBlock, level: 'hard_block', start: 0, end: opts.hardBlock.length }] : []),
      is_selected: opts.selected ?? false,
      verdict: 'ok',
      summary: 'summary',
      edited: false,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A small solid-colour image; `exif` embeds a camera tag the package must strip. */
export async function imageBytes(opts: { color: string; format?: 'jpeg' | 'png'; exif?: boolean; width?: number; height?: number }): Promise<Buffer> {
  let image = sharp({ create: { width: opts.width ?? 30, height: opts.height ?? 40, channels: 3, background: opts.color } });
  if (opts.exif) image = image.withExif({ IFD0: { Copyright: 'secret-camera-owner', Make: 'LeakyCam' } });
  return opts.format === 'png' ? image.png().toBuffer() : image.jpeg().toBuffer();
}

export async function seedImage(
  server: TestWorld,
  task: { id: number; workspaceId: number },
  opts: { strategy: 'A' | 'B' | 'C'; seq: number; role?: string; selected?: boolean; generation?: number; data: Buffer; mime?: string },
): Promise<{ id: number; key: string }> {
  const mime = opts.mime ?? 'image/jpeg';
  const stored = await server.ctx.storage.put(opts.data, { contentType: mime, extension: mime === 'image/png' ? 'png' : 'jpg' });
  const row = await server.ctx.db
    .insertInto('image_candidates')
    .values({
      workspace_id: task.workspaceId,
      task_id: task.id,
      generation: opts.generation ?? 1,
      strategy: opts.strategy,
      role: (opts.role ?? 'main') as 'main',
      seq: opts.seq,
      file_key: stored.key,
      mime,
      prompt: 'p',
      is_selected: opts.selected ?? false,
      is_regen: (opts.generation ?? 1) > 1,
      created_at: nowIso(server.clock.now()),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, key: stored.key };
}

/** Polls a package until it leaves `pending` (the worker builds it in the background). */
export async function settledPackage(server: TestServer, token: string, id: number, timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await server.request('GET', `/api/v1/delivery-packages/${id}/download`, { token });
    if (res.status !== 200) throw new Error(`package ${id}: ${res.text}`);
    if (res.body.data.status !== 'pending') return res.body.data;
    if (Date.now() > deadline) throw new Error(`package ${id} still pending after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { freshPostgresDatabase, usingPostgres } from '../helpers/server.js';

describe('migration 20261124_0001_fission_images', () => {
  it('moves every note image (made, failed, queued, pending) into rows and back down without loss', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-migrate-'));
    const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
    const database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
    // Raw SQL: the row types describe the schema after the migration, not before it.
    const db = database.db as never as import('kysely').Kysely<any>;
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('20261123_0200_task_list_versions')).error).toBeUndefined();
      const now = new Date().toISOString();
      const ws = await db.insertInto('workspaces').values({ name: 'W', slug: 'w', created_at: now }).returning('id').executeTakeFirstOrThrow();
      const user = await db
        .insertInto('users')
        .values({ username: 'u', email: 'u@example.com', password_hash: 'x', must_change_password: false, is_active: true, token_version: 0, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const product = await db
        .insertInto('products')
        .values({ workspace_id: ws.id, name: 'P', category: 'C', source: 'custom', selling_points: '[]', text_angles: '[]', banned_word_ids: '[]', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const task = await db
        .insertInto('tasks')
        .values({
          workspace_id: ws.id, product_id: product.id, operator_id: user.id, theme: 't', text_count: 1, image_count: 4, track: 'ai', status: 'pending_selection',
          benchmark_ids: '[]', need_product_image: false, overlay_text: true, generation: 1, progress: 'null', created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const fission = await db
        .insertInto('fission_tasks')
        .values({ workspace_id: ws.id, source_task_id: task.id, operator_id: user.id, reference_level: 'mid', fanout_count: 1, status: 'completed', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const overlay = { kind: 'cover', text: '封面标题' };
      const elements = [
        { seq: 1, role: 'hook', strategy: 'A', brief: 'b1', overlay, file_key: `${'a'.repeat(64)}.jpg`, mime: 'image/jpeg' },
        { seq: 2, role: 'pain', strategy: 'A', brief: 'b2', overlay: null, error: 'pain image failed: timeout' },
        { seq: 3, role: 'proof', strategy: 'A', brief: 'b3', overlay: null, retrying: true },
        { seq: 4, role: 'convert', strategy: 'A', brief: 'b4', overlay: null },
      ];
      const note = await db
        .insertInto('fission_notes')
        .values({
          workspace_id: ws.id, fission_id: fission.id, seq: 1, note: '{}', images: JSON.stringify(elements), score: 81, passed: true,
          needs_optimization: false, dimension: 'd', status: 'image_done', created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();

      expect((await migrator.migrateTo('20261124_0001_fission_images')).error).toBeUndefined();
      const rows = await sql<Record<string, unknown>>`SELECT seq, role, status, file_key, mime, error, overlay FROM fission_images WHERE note_id = ${note.id} ORDER BY seq`.execute(db);
      const decode = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
      expect(rows.rows.map((r) => ({ ...r, overlay: decode(r.overlay) }))).toEqual([
        { seq: 1, role: 'hook', status: 'done', file_key: elements[0]!.file_key, mime: 'image/jpeg', error: null, overlay },
        { seq: 2, role: 'pain', status: 'failed', file_key: null, mime: null, error: 'pain image failed: timeout', overlay: null },
        { seq: 3, role: 'proof', status: 'retrying', file_key: null, mime: null, error: null, overlay: null },
        { seq: 4, role: 'convert', status: 'pending', file_key: null, mime: null, error: null, overlay: null },
      ]);

      expect((await migrator.migrateTo('20261123_0200_task_list_versions')).error).toBeUndefined();
      const back = await sql<{ images: unknown }>`SELECT images FROM fission_notes WHERE id = ${note.id}`.execute(db);
      expect(decode(back.rows[0]!.images)).toEqual(elements);
    } finally {
      await database.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

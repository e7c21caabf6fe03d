import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { freshPostgresDatabase, usingPostgres } from '../helpers/server.js';

describe('migration 20261125_1300_image_slots', () => {
  it('keeps every image, lets a slot hold variants and failed images, and goes back down to one finished image per slot', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-migrate-'));
    const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
    const database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
    // Raw rows: the row types describe the schema after the migration, not before it.
    const db = database.db as never as Kysely<any>;
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('20261124_0120_idempotency_body_hash')).error).toBeUndefined();
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
          workspace_id: ws.id, product_id: product.id, operator_id: user.id, theme: 't', text_count: 1, image_count: 1, track: 'ai', status: 'pending_selection',
          benchmark_ids: '[]', need_product_image: false, overlay_text: true, generation: 1, progress: 'null', created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const slot = { workspace_id: ws.id, task_id: task.id, generation: 1, strategy: 'A', role: 'hook', seq: 1 };
      const before = await db
        .insertInto('image_candidates')
        .values({ ...slot, file_key: 'k1.jpg', mime: 'image/jpeg', prompt: 'p', is_selected: true, is_regen: false, created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();

      expect((await migrator.migrateTo('20261125_1300_image_slots')).error).toBeUndefined();
      const kept = await db.selectFrom('image_candidates').selectAll().where('id', '=', before.id).executeTakeFirstOrThrow();
      expect(kept).toMatchObject({ file_key: 'k1.jpg', variant: 0, source: 'ai', status: 'done', raw_file_key: null, brief: '' });
      expect(Boolean(kept.is_selected)).toBe(true);
      // The same slot now takes another variant and a failed image; the same variant twice is refused.
      await db.insertInto('image_candidates').values({ ...slot, variant: 1, file_key: null, mime: null, status: 'failed', prompt: 'p', created_at: now }).execute();
      await expect(db.insertInto('image_candidates').values({ ...slot, variant: 1, file_key: 'k2.jpg', mime: 'image/jpeg', prompt: 'p', created_at: now }).execute()).rejects.toThrow();

      expect((await migrator.migrateTo('20261124_0120_idempotency_body_hash')).error).toBeUndefined();
      const down = await db.selectFrom('image_candidates').selectAll().execute();
      expect(down).toHaveLength(1);
      expect(down[0]).toMatchObject({ id: before.id, file_key: 'k1.jpg' });
      expect('variant' in down[0]!).toBe(false);
      // The old slot rule is back.
      await expect(db.insertInto('image_candidates').values({ ...slot, file_key: 'k3.jpg', mime: 'image/jpeg', prompt: 'p', is_selected: false, is_regen: false, created_at: now }).execute()).rejects.toThrow();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    } finally {
      await database.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

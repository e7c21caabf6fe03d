import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../helpers/migration.js';

describe('migration 20261125_1300_image_slots', () => {
  it('keeps every image, lets a slot hold variants and failed images, and goes back down to one finished image per slot', async () => {
    const { db, migrator, now, workspaceId, taskId, close } = await databaseBefore('20261124_0120_idempotency_body_hash', { image_count: 1 });
    try {
      const slot = { workspace_id: workspaceId, task_id: taskId, generation: 1, strategy: 'A', role: 'hook', seq: 1 };
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
      await close();
    }
  });
});

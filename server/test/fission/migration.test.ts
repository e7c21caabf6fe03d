import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../helpers/migration.js';

describe('migration 20261124_0001_fission_images', () => {
  it('moves every note image (made, failed, queued, pending) into rows and back down without loss', async () => {
    const { db, migrator, now, workspaceId, userId, taskId, close } = await databaseBefore('20261123_0200_task_list_versions', { image_count: 4 });
    try {
      const fission = await db
        .insertInto('fission_tasks')
        .values({ workspace_id: workspaceId, source_task_id: taskId, operator_id: userId, reference_level: 'mid', fanout_count: 1, status: 'completed', created_at: now, updated_at: now })
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
          workspace_id: workspaceId, fission_id: fission.id, seq: 1, note: '{}', images: JSON.stringify(elements), score: 81, passed: true,
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
      await close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../helpers/migration.js';

describe('migration 20261126_0200_recovered_image_originals', () => {
  it('gives an image lettered before originals were kept the un-lettered image its ledger entry still names, and nothing else', async () => {
    const { db, migrator, now, workspaceId, userId, taskId, close } = await databaseBefore('20261126_0100_fission_image_originals', { image_count: 2 });
    try {
      const ledger = (call_key: string, file_key: string) =>
        db.insertInto('provider_calls').values({ call_key, workspace_id: workspaceId, result: JSON.stringify({ file_key, mime: 'image/png' }), file_key, created_at: now }).execute();
      // Task images as 20261125_1300 left them: no original, an empty brief, variant 0.
      const image = (strategy: string, seq: number, file_key: string, extra: Record<string, unknown> = {}) =>
        db
          .insertInto('image_candidates')
          .values({ workspace_id: workspaceId, task_id: taskId, generation: 1, strategy, role: seq === 1 ? 'hook' : 'pain', seq, file_key, mime: 'image/jpeg', prompt: 'p', created_at: now, ...extra })
          .returning('id')
          .executeTakeFirstOrThrow()
          .then((r) => r.id as number);
      const lettered = await image('A', 1, 'lettered-a.jpg');
      await ledger(`task:${taskId}:gen:1:image:A:1`, 'raw-a.png');
      const plain = await image('B', 1, 'raw-b.png');
      await ledger(`task:${taskId}:gen:1:image:B:1`, 'raw-b.png');
      const unknown = await image('C', 1, 'lettered-c.jpg');
      // A later variant of slot A, made under its own key: the slot's entry is not its original.
      const variant = await image('A', 1, 'regen-a.jpg', { variant: 1, brief: 'frame', is_regen: true });

      const fission = await db
        .insertInto('fission_tasks')
        .values({ workspace_id: workspaceId, source_task_id: taskId, operator_id: userId, reference_level: 'mid', fanout_count: 1, status: 'completed', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const note = await db
        .insertInto('fission_notes')
        .values({ workspace_id: workspaceId, fission_id: fission.id, seq: 1, note: '{}', score: 80, passed: true, needs_optimization: false, dimension: 'd', status: 'image_done', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const fissionImage = await db
        .insertInto('fission_images')
        .values({
          workspace_id: workspaceId, fission_id: fission.id, note_id: note.id, seq: 1, role: 'hook', strategy: 'A', brief: 'b',
          overlay: JSON.stringify({ kind: 'cover', text: '实测7天' }), status: 'done', file_key: 'f-lettered.jpg', mime: 'image/jpeg', created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await ledger(`fission:${fission.id}:image:1:1`, 'f-raw.png');

      expect((await migrator.migrateTo('20261126_0200_recovered_image_originals')).error).toBeUndefined();
      const task = async (id: number) => db.selectFrom('image_candidates').select(['file_key', 'raw_file_key', 'raw_mime', 'lettered_title']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(await task(lettered)).toEqual({ file_key: 'lettered-a.jpg', raw_file_key: 'raw-a.png', raw_mime: 'image/png', lettered_title: null });
      expect((await task(plain)).raw_file_key).toBeNull();
      expect((await task(unknown)).raw_file_key).toBeNull();
      expect((await task(variant)).raw_file_key).toBeNull();
      expect(
        await db.selectFrom('fission_images').select(['file_key', 'raw_file_key', 'raw_mime', 'lettered_title']).where('id', '=', fissionImage.id).executeTakeFirstOrThrow(),
      ).toEqual({ file_key: 'f-lettered.jpg', raw_file_key: 'f-raw.png', raw_mime: 'image/png', lettered_title: null });

      expect((await migrator.migrateTo('20261126_0100_fission_image_originals')).error).toBeUndefined();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    } finally {
      await close();
    }
  });
});

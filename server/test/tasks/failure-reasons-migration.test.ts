import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../helpers/migration.js';

/** A JSON column as read: decoded by the database layer on SQLite, by the driver on PostgreSQL. */
const decoded = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

describe('migration 20261128_0600_failure_reasons', () => {
  it('gives failures stored as sentences their reason key and params, and goes back down', async () => {
    const { db, migrator, now, workspaceId, userId, taskId, close } = await databaseBefore('20261126_0200_recovered_image_originals', { image_count: 0 });
    try {
      const nothing = 'nothing usable was produced: set A: deepseek text generation failed after 1 attempt (HTTP 402): the account has no balance left. Provider said: Insufficient Balance';
      await db.updateTable('tasks').set({ status: 'failed', failure_reason: nothing }).where('id', '=', taskId).execute();
      const pkg = (error: string | null) =>
        db
          .insertInto('delivery_packages')
          .values({ workspace_id: workspaceId, task_id: taskId, created_by: userId, status: error ? 'failed' : 'ready', error, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
          .then((r) => r.id as number);
      const [built, queued, rejected, fine] = [
        await pkg('the package could not be built (internal error); create it again'),
        await pkg('the build could not be queued; create the package again'),
        await pkg('text candidate 7 no longer exists'),
        await pkg(null),
      ];

      expect((await migrator.migrateTo('20261128_0600_failure_reasons')).error).toBeUndefined();
      const task = await db.selectFrom('tasks').select(['failure_reason', 'failure_key', 'failure_params']).where('id', '=', taskId).executeTakeFirstOrThrow();
      expect({ ...task, failure_params: decoded(task.failure_params) }).toEqual({
        failure_reason: nothing,
        failure_key: 'failure.nothing',
        failure_params: { detail: nothing.slice('nothing usable was produced: '.length) },
      });
      const packages = await db.selectFrom('delivery_packages').select(['id', 'error_key', 'error_params']).orderBy('id').execute();
      expect(packages.map((p) => ({ id: p.id, key: p.error_key, params: decoded(p.error_params) }))).toEqual([
        { id: built, key: 'failure.package_build', params: {} },
        { id: queued, key: 'failure.package_queue', params: {} },
        { id: rejected, key: 'failure.other', params: { detail: 'text candidate 7 no longer exists' } },
        { id: fine, key: null, params: null },
      ]);

      expect((await migrator.migrateTo('20261128_0400_link_tables')).error).toBeUndefined();
      const after = await db.selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirstOrThrow();
      expect(Object.keys(after)).not.toContain('failure_key');
      expect(after.failure_reason).toBe(nothing);
    } finally {
      await close();
    }
  });
});

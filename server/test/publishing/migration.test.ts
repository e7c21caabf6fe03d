import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../helpers/migration.js';

describe('migration 20261128_1000_publishing', () => {
  it('adds accounts, posts, their images and metrics snapshots (one per capture time), and goes back down', async () => {
    const { db, migrator, now, workspaceId, userId, taskId, close } = await databaseBefore('20261128_0900_task_audit', { image_count: 0 });
    try {
      expect((await migrator.migrateTo('20261128_1000_publishing')).error).toBeUndefined();
      const account = await db
        .insertInto('accounts')
        .values({ workspace_id: workspaceId, name: '小红薯A', daily_cap: 2, min_gap_minutes: 180, timezone: 'Asia/Shanghai', created_at: now, updated_at: now })
        .returning(['id', 'active'])
        .executeTakeFirstOrThrow();
      expect(Boolean(account.active)).toBe(true);
      const post = await db
        .insertInto('posts')
        .values({
          workspace_id: workspaceId, account_id: account.id, status: 'scheduled', scheduled_at: now, note_key: `task:${taskId}:A`, task_id: taskId, strategy: 'A',
          title: '标题', body: '正文', tags: '["护肤"]', warnings: '[]', created_by: userId, created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db.insertInto('post_images').values({ post_id: post.id, position: 1, role: 'cover', file_key: 'images/a.jpg' }).execute();
      const snapshot = { workspace_id: workspaceId, post_id: post.id, captured_at: now, views: 100, likes: 5, source: 'import', created_at: now };
      await db.insertInto('post_metrics').values(snapshot).execute();
      await expect(db.insertInto('post_metrics').values(snapshot).execute()).rejects.toThrow();

      expect((await migrator.migrateTo('20261128_0900_task_audit')).error).toBeUndefined();
      await expect(db.selectFrom('posts').selectAll().execute()).rejects.toThrow();
      expect((await migrator.migrateTo('20261128_1000_publishing')).error).toBeUndefined();
      expect(await db.selectFrom('accounts').selectAll().execute()).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe('migration 20261128_1100_account_on_tasks', () => {
  it('lets a task and a fission name the account they are meant for, and goes back down', async () => {
    const { db, migrator, now, workspaceId, taskId, close } = await databaseBefore('20261128_1000_publishing', { image_count: 0 });
    try {
      expect((await migrator.migrateTo('20261128_1100_account_on_tasks')).error).toBeUndefined();
      const account = await db
        .insertInto('accounts')
        .values({ workspace_id: workspaceId, name: '人设号', daily_cap: 2, min_gap_minutes: 180, timezone: 'Asia/Shanghai', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db.updateTable('tasks').set({ account_id: account.id }).where('id', '=', taskId).execute();
      expect((await db.selectFrom('tasks').select('account_id').where('id', '=', taskId).executeTakeFirstOrThrow()).account_id).toBe(account.id);
      expect((await migrator.migrateTo('20261128_1000_publishing')).error).toBeUndefined();
      await expect(db.selectFrom('tasks').select('account_id').execute()).rejects.toThrow();
    } finally {
      await close();
    }
  });
});

describe('migration 20261128_1200_review_context', () => {
  it('keeps a submission\'s note and the texts a review saw, adds anchored comments, and goes back down', async () => {
    const { db, migrator, now, workspaceId, userId, taskId, close } = await databaseBefore('20261128_1100_account_on_tasks', { image_count: 0 });
    try {
      expect((await migrator.migrateTo('20261128_1200_review_context')).error).toBeUndefined();
      await db.insertInto('reviews').values({ workspace_id: workspaceId, task_id: taskId, user_id: userId, action: 'submit', reason: null, note: '低于及格线但客户要', texts: '[]', final: false, created_at: now }).execute();
      await db.insertInto('review_comments').values({ workspace_id: workspaceId, task_id: taskId, author_id: userId, anchor_kind: 'task', body: '封面再亮一点', created_at: now }).execute();
      expect((await db.selectFrom('review_comments').select('body').execute()).map((r) => r.body)).toEqual(['封面再亮一点']);
      expect((await migrator.migrateTo('20261128_1100_account_on_tasks')).error).toBeUndefined();
      await expect(db.selectFrom('review_comments').selectAll().execute()).rejects.toThrow();
    } finally {
      await close();
    }
  });
});

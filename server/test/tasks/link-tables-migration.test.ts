import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../helpers/migration.js';

describe('migration 20261128_0400_link_tables', () => {
  it('moves the JSON id arrays into link rows without loss, drops ids that name nothing, and goes back down', async () => {
    const { db, migrator, now, workspaceId, userId, productId, taskId, close } = await databaseBefore('20261126_0200_recovered_image_originals', { image_count: 0 });
    try {
      const word = (text: string) =>
        db
          .insertInto('banned_words')
          .values({ workspace_id: workspaceId, word: text, level: 'hard_block', created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
          .then((r) => r.id as number);
      const w1 = await word('最好');
      await word('第一'); // a word of the workspace attached to no product
      const w3 = await word('根治');
      const other = await db
        .insertInto('products')
        .values({ workspace_id: workspaceId, name: 'Q', category: 'C', source: 'custom', selling_points: '[]', text_angles: '[]', banned_word_ids: '[]', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      // 424242 was a word deleted before this migration, when nothing cleaned the arrays.
      await db.updateTable('products').set({ banned_word_ids: JSON.stringify([w3, w1, 424242]) }).where('id', '=', productId).execute();

      const benchmark = (highlights: string) =>
        db
          .insertInto('benchmarks')
          .values({ workspace_id: workspaceId, product_id: productId, highlights, analyze_status: 'done', created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
          .then((r) => r.id as number);
      const [b1, b2] = [await benchmark('一'), await benchmark('二')];
      await db.updateTable('tasks').set({ benchmark_ids: JSON.stringify([b2, b1]) }).where('id', '=', taskId).execute();

      const text = (slot: number) =>
        db
          .insertInto('text_candidates')
          .values({
            workspace_id: workspaceId, task_id: taskId, generation: 1, slot, angle_label: 'a', title: `t${slot}`, content: 'c', tags: '[]', cover_title: 'c', image_brief: 'b',
            source: 'ai', score: '{}', score_total: 80, banned_word_status: 'pass', banned_hits: '[]', verdict: 'pass', summary: 's', created_at: now, updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
          .then((r) => r.id as number);
      const [t1, t2] = [await text(1), await text(2)];
      const pkg = (noteIds: string | null) =>
        db
          .insertInto('delivery_packages')
          .values({ workspace_id: workspaceId, task_id: taskId, created_by: userId, status: 'ready', note_ids: noteIds, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
          .then((r) => r.id as number);
      const [ordered, legacy] = [await pkg(JSON.stringify([t2, t1])), await pkg(null)];

      expect((await migrator.migrateTo('20261128_0400_link_tables')).error).toBeUndefined();
      const rows = (table: string, order: string[]) => db.selectFrom(table).selectAll().orderBy(order).execute();
      expect(await rows('product_banned_words', ['product_id', 'banned_word_id'])).toEqual([
        { workspace_id: workspaceId, product_id: productId, banned_word_id: w1 },
        { workspace_id: workspaceId, product_id: productId, banned_word_id: w3 },
      ]);
      expect(await rows('task_benchmarks', ['position'])).toEqual([
        { workspace_id: workspaceId, task_id: taskId, benchmark_id: b2, position: 0 },
        { workspace_id: workspaceId, task_id: taskId, benchmark_id: b1, position: 1 },
      ]);
      expect(await rows('package_notes', ['package_id', 'position'])).toEqual([
        { workspace_id: workspaceId, package_id: ordered, text_candidate_id: t2, position: 0 },
        { workspace_id: workspaceId, package_id: ordered, text_candidate_id: t1, position: 1 },
      ]);
      const columns = async (table: string) => (await db.introspection.getTables()).find((t) => t.name === table)!.columns.map((c) => c.name);
      expect(await columns('products')).not.toContain('banned_word_ids');
      expect(await columns('tasks')).not.toContain('benchmark_ids');
      expect(await columns('delivery_packages')).not.toContain('note_ids');

      // The database now keeps the links: a deleted word or benchmark takes its links along.
      await db.deleteFrom('banned_words').where('id', '=', w3).execute();
      await db.deleteFrom('benchmarks').where('id', '=', b1).execute();
      expect((await rows('product_banned_words', ['banned_word_id'])).map((r) => r.banned_word_id)).toEqual([w1]);
      expect((await rows('task_benchmarks', ['position'])).map((r) => r.benchmark_id)).toEqual([b2]);

      expect((await migrator.migrateTo('20261126_0200_recovered_image_originals')).error).toBeUndefined();
      const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
      const products = await db.selectFrom('products').select(['id', 'banned_word_ids']).orderBy('id').execute();
      expect(products.map((p) => [p.id, parsed(p.banned_word_ids)])).toEqual([
        [productId, [w1]],
        [other.id, []],
      ]);
      const task = await db.selectFrom('tasks').select('benchmark_ids').where('id', '=', taskId).executeTakeFirstOrThrow();
      expect(parsed(task.benchmark_ids)).toEqual([b2]);
      const packages = await db.selectFrom('delivery_packages').select(['id', 'note_ids']).orderBy('id').execute();
      expect(packages.map((p) => [p.id, parsed(p.note_ids)])).toEqual([
        [ordered, [t2, t1]],
        [legacy, null],
      ]);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expect(await rows('package_notes', ['package_id', 'position'])).toHaveLength(2);
    } finally {
      await close();
    }
  });
});

import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * The links that were JSON id arrays become rows with foreign keys: a product's extra banned
 * words (`products.banned_word_ids`), a task's benchmarks (`tasks.benchmark_ids`) and a
 * package's notes (`delivery_packages.note_ids`, in folder order). The database now keeps them
 * consistent: a deleted banned word or benchmark leaves no dangling id behind, where code had to
 * remember to clean each array. Every link row carries its workspace, like every other row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  const ws = (c: any) => c.notNull().references('workspaces.id').onDelete('cascade');
  await db.schema
    .createTable('product_banned_words')
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('banned_word_id', 'integer', (c) => c.notNull().references('banned_words.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('product_banned_words_pk', ['product_id', 'banned_word_id'])
    .execute();
  // Which products a word is attached to, per workspace (the words that apply to a product's texts).
  await db.schema.createIndex('product_banned_words_word_idx').on('product_banned_words').columns(['workspace_id', 'banned_word_id']).execute();

  await db.schema
    .createTable('task_benchmarks')
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('benchmark_id', 'integer', (c) => c.notNull().references('benchmarks.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('task_benchmarks_pk', ['task_id', 'benchmark_id'])
    .execute();
  await db.schema.createIndex('task_benchmarks_benchmark_idx').on('task_benchmarks').column('benchmark_id').execute();

  await db.schema
    .createTable('package_notes')
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('package_id', 'integer', (c) => c.notNull().references('delivery_packages.id').onDelete('cascade'))
    .addColumn('text_candidate_id', 'integer', (c) => c.notNull().references('text_candidates.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('package_notes_pk', ['package_id', 'position'])
    .execute();
  await db.schema.createIndex('package_notes_text_idx').on('package_notes').column('text_candidate_id').execute();

  // Ids in the arrays that name no row any more (a word or benchmark deleted before this
  // migration, when nothing cleaned the arrays) are left behind: a link needs both ends.
  const ids = (value: unknown): number[] => {
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    return Array.isArray(parsed) ? [...new Set(parsed.filter((id): id is number => Number.isInteger(id)))] : [];
  };
  const existing = async (table: string) => new Set((await db.selectFrom(table).select('id').execute()).map((r) => Number(r.id)));
  // Most arrays are empty: only the others are read (a large task table is not loaded whole).
  const listed = (table: string, column: string) =>
    db.selectFrom(table).select(['id', 'workspace_id', column]).where(column, 'is not', null).where(sql.ref(column), '<>', t.pg ? sql`'[]'::jsonb` : sql`'[]'`).execute();

  const words = await existing('banned_words');
  for (const product of await listed('products', 'banned_word_ids')) {
    const rows = ids(product.banned_word_ids)
      .filter((id) => words.has(id))
      .map((banned_word_id) => ({ workspace_id: product.workspace_id, product_id: product.id, banned_word_id }));
    if (rows.length > 0) await db.insertInto('product_banned_words').values(rows).execute();
  }
  const benchmarks = await existing('benchmarks');
  for (const task of await listed('tasks', 'benchmark_ids')) {
    const rows = ids(task.benchmark_ids)
      .filter((id) => benchmarks.has(id))
      .map((benchmark_id, position) => ({ workspace_id: task.workspace_id, task_id: task.id, benchmark_id, position }));
    if (rows.length > 0) await db.insertInto('task_benchmarks').values(rows).execute();
  }
  const texts = await existing('text_candidates');
  for (const pkg of await listed('delivery_packages', 'note_ids')) {
    const rows = ids(pkg.note_ids)
      .filter((id) => texts.has(id))
      .map((text_candidate_id, position) => ({ workspace_id: pkg.workspace_id, package_id: pkg.id, text_candidate_id, position }));
    if (rows.length > 0) await db.insertInto('package_notes').values(rows).execute();
  }

  await db.schema.alterTable('products').dropColumn('banned_word_ids').execute();
  await db.schema.alterTable('tasks').dropColumn('benchmark_ids').execute();
  await db.schema.alterTable('delivery_packages').dropColumn('note_ids').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema.alterTable('products').addColumn('banned_word_ids', t.json, (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('tasks').addColumn('benchmark_ids', t.json, (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('delivery_packages').addColumn('note_ids', t.json).execute();

  const grouped = <R extends Record<string, any>>(rows: R[], by: keyof R, value: keyof R) => {
    const out = new Map<number, number[]>();
    for (const row of rows) out.set(Number(row[by]), [...(out.get(Number(row[by])) ?? []), Number(row[value])]);
    return out;
  };
  const links = [
    ['products', 'banned_word_ids', await db.selectFrom('product_banned_words').select(['product_id as owner', 'banned_word_id as id']).orderBy('banned_word_id').execute()],
    ['tasks', 'benchmark_ids', await db.selectFrom('task_benchmarks').select(['task_id as owner', 'benchmark_id as id']).orderBy('position').execute()],
    ['delivery_packages', 'note_ids', await db.selectFrom('package_notes').select(['package_id as owner', 'text_candidate_id as id']).orderBy('position').execute()],
  ] as const;
  for (const [table, column, rows] of links) {
    for (const [owner, list] of grouped(rows, 'owner', 'id')) {
      await db.updateTable(table).set({ [column]: JSON.stringify(list) }).where('id', '=', owner).execute();
    }
  }
  for (const table of ['package_notes', 'task_benchmarks', 'product_banned_words']) await db.schema.dropTable(table).execute();
}

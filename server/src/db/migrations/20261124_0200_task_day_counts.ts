import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Task counts per UTC day of `created_at`, kept by triggers in the transaction of every insert,
 * delete and move of a task (status, product, workspace or creation time), whoever writes it.
 * `GET /tasks` sums them for the whole days of a date range, so a total costs one row per day
 * (plus exact counts of at most two partial days) however many tasks the range holds.
 *
 * Each task counts in four rows of its day, one per filter a list can combine: product 0 stands
 * for every product and status '*' for every status, so (product, '*') answers a product filter,
 * (0, status) a status filter and (0, '*') none, each as one range of the primary key.
 */
const ANY_PRODUCT = 0;
const ANY_STATUS = '*';

export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema
    .createTable('task_day_counts')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('task_day_counts_pk', ['workspace_id', 'product_id', 'status', 'day'])
    .execute();

  // The UTC day as YYYY-MM-DD: SQLite stores created_at as ISO text in UTC already.
  const dayOf = (row: 'NEW' | 'OLD' | 'tasks') =>
    t.pg ? sql.raw(`to_char(${row}.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`) : sql.raw(`substr(${row}.created_at, 1, 10)`);

  // One pass per kind of row: by (product, status), by status alone, by product alone, all tasks.
  for (const [byProduct, byStatus] of [[true, true], [false, true], [true, false], [false, false]]) {
    const product = byProduct ? sql.raw('product_id') : sql.lit(ANY_PRODUCT);
    const status = byStatus ? sql.raw('status') : sql.lit(ANY_STATUS);
    const groups = [sql.raw('workspace_id'), ...(byProduct ? [product] : []), ...(byStatus ? [status] : []), dayOf('tasks')];
    await sql`INSERT INTO task_day_counts (workspace_id, product_id, status, day, n)
      SELECT workspace_id, ${product}, ${status}, ${dayOf('tasks')}, count(*) FROM tasks
      GROUP BY ${sql.join(groups)}`.execute(db);
  }

  const add = sql`INSERT INTO task_day_counts (workspace_id, product_id, status, day, n) VALUES
      (NEW.workspace_id, NEW.product_id, NEW.status, ${dayOf('NEW')}, 1),
      (NEW.workspace_id, ${sql.lit(ANY_PRODUCT)}, NEW.status, ${dayOf('NEW')}, 1),
      (NEW.workspace_id, NEW.product_id, ${sql.lit(ANY_STATUS)}, ${dayOf('NEW')}, 1),
      (NEW.workspace_id, ${sql.lit(ANY_PRODUCT)}, ${sql.lit(ANY_STATUS)}, ${dayOf('NEW')}, 1)
    ON CONFLICT (workspace_id, product_id, status, day) DO UPDATE SET n = task_day_counts.n + 1;`;
  const remove = sql`UPDATE task_day_counts SET n = n - 1
    WHERE workspace_id = OLD.workspace_id AND day = ${dayOf('OLD')}
      AND product_id IN (OLD.product_id, ${sql.lit(ANY_PRODUCT)}) AND status IN (OLD.status, ${sql.lit(ANY_STATUS)});`;
  const columns = sql.raw('status, product_id, workspace_id, created_at');

  if (t.pg) {
    const moved = sql`OLD.status IS DISTINCT FROM NEW.status OR OLD.product_id IS DISTINCT FROM NEW.product_id
      OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id OR ${dayOf('OLD')} IS DISTINCT FROM ${dayOf('NEW')}`;
    // Concurrent writers of one workspace share its counter rows. They are changed in one
    // statement, in primary-key order, and only where the net change is not zero (a status move
    // leaves the rows of every status untouched), so two transactions never take the same rows
    // in opposite orders: PostgreSQL would answer one of them with "deadlock detected".
    const rowsOf = (row: 'OLD' | 'NEW', n: number) => sql`SELECT ${sql.raw(row)}.workspace_id AS workspace_id, k.product_id, k.status,
        ${dayOf(row)} AS day, ${sql.lit(n)} AS n
      FROM (VALUES (${sql.raw(row)}.product_id, ${sql.raw(row)}.status), (${sql.lit(ANY_PRODUCT)}, ${sql.raw(row)}.status),
        (${sql.raw(row)}.product_id, ${sql.lit(ANY_STATUS)}), (${sql.lit(ANY_PRODUCT)}, ${sql.lit(ANY_STATUS)})) AS k (product_id, status)
      WHERE TG_OP <> ${sql.lit(row === 'OLD' ? 'INSERT' : 'DELETE')}`;
    await sql`CREATE FUNCTION task_day_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO task_day_counts AS c (workspace_id, product_id, status, day, n)
          SELECT workspace_id, product_id, status, day, sum(n) FROM (${rowsOf('OLD', -1)} UNION ALL ${rowsOf('NEW', 1)}) AS change
          GROUP BY workspace_id, product_id, status, day
          HAVING sum(n) <> 0
          ORDER BY workspace_id, product_id, status, day
        ON CONFLICT (workspace_id, product_id, status, day) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER tasks_day_count_insert_delete AFTER INSERT OR DELETE ON tasks
      FOR EACH ROW EXECUTE FUNCTION task_day_counts_track()`.execute(db);
    await sql`CREATE TRIGGER tasks_day_count_update AFTER UPDATE OF ${columns} ON tasks
      FOR EACH ROW WHEN (${moved}) EXECUTE FUNCTION task_day_counts_track()`.execute(db);
    return;
  }
  const moved = sql`OLD.status IS NOT NEW.status OR OLD.product_id IS NOT NEW.product_id
    OR OLD.workspace_id IS NOT NEW.workspace_id OR ${dayOf('OLD')} IS NOT ${dayOf('NEW')}`;
  await sql`CREATE TRIGGER tasks_day_count_insert AFTER INSERT ON tasks BEGIN ${add} END`.execute(db);
  await sql`CREATE TRIGGER tasks_day_count_delete AFTER DELETE ON tasks BEGIN ${remove} END`.execute(db);
  await sql`CREATE TRIGGER tasks_day_count_update AFTER UPDATE OF ${columns} ON tasks WHEN ${moved} BEGIN ${remove} ${add} END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  if (t.pg) {
    await sql`DROP TRIGGER tasks_day_count_update ON tasks`.execute(db);
    await sql`DROP TRIGGER tasks_day_count_insert_delete ON tasks`.execute(db);
    await sql`DROP FUNCTION task_day_counts_track()`.execute(db);
  } else {
    for (const name of ['tasks_day_count_update', 'tasks_day_count_delete', 'tasks_day_count_insert']) await sql`DROP TRIGGER ${sql.id(name)}`.execute(db);
  }
  await db.schema.dropTable('task_day_counts').execute();
}

import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Task counts per (workspace, product, status), kept by triggers in the transaction of every
 * insert, delete and move of a task, whoever writes it. `GET /tasks` reads its `total` from
 * here (a handful of rows) instead of counting every matching task per request.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema
    .createTable('task_counts')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('task_counts_pk', ['workspace_id', 'product_id', 'status'])
    .execute();
  await sql`INSERT INTO task_counts (workspace_id, product_id, status, n)
    SELECT workspace_id, product_id, status, count(*) FROM tasks GROUP BY workspace_id, product_id, status`.execute(db);

  const old = sql`UPDATE task_counts SET n = n - 1
    WHERE workspace_id = OLD.workspace_id AND product_id = OLD.product_id AND status = OLD.status;`;
  const add = sql`INSERT INTO task_counts (workspace_id, product_id, status, n) VALUES (NEW.workspace_id, NEW.product_id, NEW.status, 1)
    ON CONFLICT (workspace_id, product_id, status) DO UPDATE SET n = task_counts.n + 1;`;
  const moved = sql`OLD.status IS DISTINCT FROM NEW.status OR OLD.product_id IS DISTINCT FROM NEW.product_id OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id`;

  if (t.pg) {
    await sql`CREATE FUNCTION task_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN ${old} END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN ${add} END IF;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER tasks_count_insert_delete AFTER INSERT OR DELETE ON tasks
      FOR EACH ROW EXECUTE FUNCTION task_counts_track()`.execute(db);
    await sql`CREATE TRIGGER tasks_count_update AFTER UPDATE OF status, product_id, workspace_id ON tasks
      FOR EACH ROW WHEN (${moved}) EXECUTE FUNCTION task_counts_track()`.execute(db);
    return;
  }
  // SQLite spells IS DISTINCT FROM as IS NOT.
  const movedSqlite = sql`OLD.status IS NOT NEW.status OR OLD.product_id IS NOT NEW.product_id OR OLD.workspace_id IS NOT NEW.workspace_id`;
  await sql`CREATE TRIGGER tasks_count_insert AFTER INSERT ON tasks BEGIN ${add} END`.execute(db);
  await sql`CREATE TRIGGER tasks_count_delete AFTER DELETE ON tasks BEGIN ${old} END`.execute(db);
  await sql`CREATE TRIGGER tasks_count_update AFTER UPDATE OF status, product_id, workspace_id ON tasks
    WHEN ${movedSqlite} BEGIN ${old} ${add} END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  if (t.pg) {
    await sql`DROP TRIGGER tasks_count_update ON tasks`.execute(db);
    await sql`DROP TRIGGER tasks_count_insert_delete ON tasks`.execute(db);
    await sql`DROP FUNCTION task_counts_track()`.execute(db);
  } else {
    for (const name of ['tasks_count_update', 'tasks_count_delete', 'tasks_count_insert']) await sql`DROP TRIGGER ${sql.id(name)}`.execute(db);
  }
  await db.schema.dropTable('task_counts').execute();
}

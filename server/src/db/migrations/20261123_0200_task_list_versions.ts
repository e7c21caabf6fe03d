import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/** The task columns a `GET /tasks` item shows (with the product's name): a change to any of them changes a page. */
const LISTED_COLUMNS = sql.raw(
  'workspace_id, product_id, theme, status, created_at, text_count, image_count, track, need_product_image, review_status, reject_reason, reviewed_at',
);

/**
 * A version per workspace of everything a task list page shows, bumped by triggers in the
 * transaction of each change, whoever writes it: a task added or removed, a listed column of a
 * task changed, a product renamed. `GET /tasks` keeps serialized pages tagged with the version
 * they were read at and serves one again only while the version is unchanged. Progress and
 * event writes of a running generation touch no listed column and leave it alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema
    .createTable('task_list_versions')
    .addColumn('workspace_id', 'integer', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO task_list_versions (workspace_id, version) SELECT id, 1 FROM workspaces`.execute(db);

  const bump = (workspace: 'NEW' | 'OLD') =>
    sql`INSERT INTO task_list_versions (workspace_id, version) VALUES (${sql.raw(workspace)}.workspace_id, 1)
      ON CONFLICT (workspace_id) DO UPDATE SET version = task_list_versions.version + 1;`;
  // A task removed by its workspace's cascade must not insert a row for that workspace again.
  const bumpExisting = sql`UPDATE task_list_versions SET version = version + 1 WHERE workspace_id = OLD.workspace_id;`;

  if (t.pg) {
    await sql`CREATE FUNCTION task_list_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN ${bumpExisting} ELSE ${bump('NEW')} END IF;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER tasks_list_version AFTER INSERT OR DELETE OR UPDATE OF ${LISTED_COLUMNS} ON tasks
      FOR EACH ROW EXECUTE FUNCTION task_list_version_bump()`.execute(db);
    await sql`CREATE TRIGGER products_list_version AFTER UPDATE OF name ON products
      FOR EACH ROW EXECUTE FUNCTION task_list_version_bump()`.execute(db);
    return;
  }
  await sql`CREATE TRIGGER tasks_list_version_insert AFTER INSERT ON tasks BEGIN ${bump('NEW')} END`.execute(db);
  await sql`CREATE TRIGGER tasks_list_version_delete AFTER DELETE ON tasks BEGIN ${bumpExisting} END`.execute(db);
  await sql`CREATE TRIGGER tasks_list_version_update AFTER UPDATE OF ${LISTED_COLUMNS} ON tasks BEGIN ${bump('NEW')} END`.execute(db);
  await sql`CREATE TRIGGER products_list_version AFTER UPDATE OF name ON products BEGIN ${bump('NEW')} END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  if (t.pg) {
    await sql`DROP TRIGGER products_list_version ON products`.execute(db);
    await sql`DROP TRIGGER tasks_list_version ON tasks`.execute(db);
    await sql`DROP FUNCTION task_list_version_bump()`.execute(db);
  } else {
    for (const name of ['products_list_version', 'tasks_list_version_update', 'tasks_list_version_delete', 'tasks_list_version_insert']) {
      await sql`DROP TRIGGER ${sql.id(name)}`.execute(db);
    }
  }
  await db.schema.dropTable('task_list_versions').execute();
}

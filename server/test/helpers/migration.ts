import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { freshPostgresDatabase, usingPostgres } from './server.js';

/**
 * What a product and a task row had to hold before 20261128_0400_link_tables (NOT NULL columns
 * that are rows now): a migration test writing rows under an older schema adds them.
 */
export const LEGACY_PRODUCT: object = { banned_word_ids: '[]' };
export const LEGACY_TASK: object = { benchmark_ids: '[]' };

/**
 * A fresh database (SQLite, or PostgreSQL when the suite runs there) migrated up to `before`,
 * holding one task of a workspace's product as it was stored then, for a migration test to move
 * up and down. `db` is untyped: the row types describe the schema after every migration.
 */
export async function databaseBefore(before: string, task: { image_count: number }) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-migrate-'));
  const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
  const database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
  const db = database.db as never as Kysely<any>;
  const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
  const close = async () => {
    await database.close();
    await pgDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const migrated = await migrator.migrateTo(before);
    if (migrated.error) throw migrated.error;
    const now = new Date().toISOString();
    // The JSON id arrays the link tables replaced exist only before them.
    const legacy = before < '20261128_0400_link_tables';
    const ws = await db.insertInto('workspaces').values({ name: 'W', slug: 'w', created_at: now }).returning('id').executeTakeFirstOrThrow();
    const user = await db
      .insertInto('users')
      .values({ username: 'u', email: 'u@example.com', password_hash: 'x', must_change_password: false, is_active: true, token_version: 0, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const product = await db
      .insertInto('products')
      .values({ workspace_id: ws.id, name: 'P', category: 'C', source: 'custom', selling_points: '[]', text_angles: '[]', ...(legacy ? LEGACY_PRODUCT : {}), created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const row = await db
      .insertInto('tasks')
      .values({
        workspace_id: ws.id, product_id: product.id, operator_id: user.id, theme: 't', text_count: 1, image_count: task.image_count, track: 'ai', status: 'pending_selection',
        ...(legacy ? LEGACY_TASK : {}), need_product_image: false, overlay_text: true, generation: 1, progress: 'null', created_at: now, updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { db, migrator, now, workspaceId: ws.id as number, userId: user.id as number, productId: product.id as number, taskId: row.id as number, close };
  } catch (err) {
    await close();
    throw err;
  }
}

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_COLUMNS } from '../../src/modules/tasks/repository.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The task-list page cache is only as fresh as the triggers that bump the workspace's version
 * (migration 20261123_0200): every column a list item shows must be one they watch. The
 * triggers are read back from the migrated database, as it runs.
 */
describe('task-list version triggers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ worker: false });
  });
  afterAll(async () => server?.close());

  /** `UPDATE OF a, b ON table` of the triggers on `table`, as the database stores them. */
  async function watchedColumns(table: string): Promise<Set<string>> {
    const definitions =
      server.ctx.dialect === 'postgres'
        ? (await sql<{ def: string }>`SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = ${table}::regclass AND NOT tgisinternal`.execute(server.ctx.db)).rows
        : (await sql<{ def: string }>`SELECT sql AS def FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ${table}`.execute(server.ctx.db)).rows;
    const columns = new Set<string>();
    for (const { def } of definitions) {
      if (!/version/i.test(def)) continue;
      const of = /UPDATE OF (.+?) ON /i.exec(def);
      for (const column of of?.[1]?.split(',') ?? []) columns.add(column.trim().replace(/"/g, ''));
    }
    return columns;
  }

  it('watch every listed task column and the product name the list joins', async () => {
    const tasks = await watchedColumns('tasks');
    const products = await watchedColumns('products');
    const listed = LIST_COLUMNS.map((c) => c.split(' as ')[0]!);
    expect(listed.length).toBeGreaterThan(5);
    for (const column of listed) {
      const [table, name] = column.split('.') as [string, string];
      // The id of a row never changes; insert and delete triggers cover rows coming and going.
      if (name === 'id') continue;
      expect({ column, watched: (table === 'tasks' ? tasks : products).has(name) }).toEqual({ column, watched: true });
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { freshPostgresDatabase, usingPostgres } from '../helpers/server.js';

describe('migration 20261125_1100_preset_word_levels', () => {
  it('moves the old presets\' grammar-breaking and claim-swapping auto-fixes to warn or block, leaves changed rows alone, and goes back down', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-migrate-'));
    const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
    const database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('20261125_1000_connections')).error).toBeUndefined();
      const db = database.db as Kysely<any>;
      const then = '2026-01-01T00:00:00.000Z';
      const ws = await db.insertInto('workspaces').values({ name: 'W', slug: 'w', created_at: then }).returning('id').executeTakeFirstOrThrow();
      const other = await db.insertInto('workspaces').values({ name: 'O', slug: 'o', created_at: then }).returning('id').executeTakeFirstOrThrow();
      const locked = usingPostgres ? false : 0;
      const open = usingPostgres ? true : 1;
      const row = (workspace_id: number, word: string, level: string, replacement: string | null, updatable: boolean | number) => ({ workspace_id, word, level, replacement, updatable, created_at: then, updated_at: then });
      await db.insertInto('banned_words').values([
        row(ws.id, '最好', 'auto_fix', '很好', locked),
        row(ws.id, '速效', 'auto_fix', '快速见效', locked),
        row(ws.id, '立竿见影', 'auto_fix', '效果明显', locked),
        row(ws.id, '最佳', 'auto_fix', '优秀', locked),
        // A workspace's own choices: an unlocked row, a locked row with another replacement.
        row(other.id, '最好', 'auto_fix', '很好', open),
        row(other.id, '速效', 'auto_fix', '见效快', locked),
      ]).execute();
      const levels = async () =>
        (await db.selectFrom('banned_words').select(['workspace_id', 'word', 'level', 'replacement']).orderBy('id').execute()).map((r) => [r.workspace_id === ws.id ? 'w' : 'o', r.word, r.level, r.replacement]);

      expect((await migrator.migrateTo('20261125_1100_preset_word_levels')).error).toBeUndefined();
      expect(await levels()).toEqual([
        ['w', '最好', 'soft_warn', null],
        ['w', '速效', 'hard_block', null],
        ['w', '立竿见影', 'hard_block', null],
        ['w', '最佳', 'auto_fix', '优秀'],
        ['o', '最好', 'auto_fix', '很好'],
        ['o', '速效', 'auto_fix', '见效快'],
      ]);
      // Every process's cached matcher sees the change (its version reads max(updated_at)).
      const moved = await db.selectFrom('banned_words').select('updated_at').where('workspace_id', '=', ws.id).where('word', '=', '最好').executeTakeFirstOrThrow();
      expect(String(moved.updated_at instanceof Date ? moved.updated_at.toISOString() : moved.updated_at)).not.toBe(then);

      expect((await migrator.migrateTo('20261125_1000_connections')).error).toBeUndefined();
      expect((await levels()).slice(0, 3)).toEqual([
        ['w', '最好', 'auto_fix', '很好'],
        ['w', '速效', 'auto_fix', '快速见效'],
        ['w', '立竿见影', 'auto_fix', '效果明显'],
      ]);
    } finally {
      await database.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

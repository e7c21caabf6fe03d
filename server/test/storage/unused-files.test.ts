import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { FILE_KEY_COLUMNS } from '../../src/db/schema.js';
import { sweepUnusedFiles } from '../../src/modules/files/service.js';
import { fileSweepOptionsFrom } from '../../src/config.js';
import type { FileStorage } from '../../src/storage/types.js';
import { form } from '../config/setup.js';
import { keyOfUrl, notesOf, settledFission } from '../fission/fixtures.js';
import { settledDetail, waitFor } from '../generation/helpers.js';
import { ADMIN_NEW_PASSWORD, freshPostgresDatabase, startTestServer, usingPostgres, type TestServer } from '../helpers/server.js';
import { createTask, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { startLocalS3, type LocalS3 } from './s3rver.js';

/** Short enough to wait for; at least a second, since S3 stamps writes in whole seconds. */
const GRACE_MS = 1_500;
/** Until every file written before this call is past the grace period, whatever the store's rounding. */
const pastGrace = () => new Promise((resolve) => setTimeout(resolve, GRACE_MS + 1_100));

const png = (color: string) => sharp({ create: { width: 64, height: 48, channels: 3, background: color } }).png().toBuffer();

for (const kind of ['local', 's3'] as const) {
  describe(`unused product image files (${kind} storage)`, () => {
    let s3: LocalS3 | undefined;
    let server: TestServer;
    let token: string;
    let productId: number;

    beforeAll(async () => {
      s3 = kind === 's3' ? await startLocalS3('cps-sweep') : undefined;
      // No worker: the sweeps here are the test's own, run when it says.
      server = await startTestServer({ worker: false, env: s3?.env ?? {} });
      token = await server.adminToken();
      productId = (await ok(server, 'POST', '/products', token, { name: '云朵面霜', category: '护肤', source: 'custom' })).id;
    });
    afterAll(async () => {
      await server?.close();
      await s3?.close();
    });

    const upload = async (data: Buffer) => {
      const res = await server.request('POST', `/api/v1/products/${productId}/images`, { token, raw: form({ scene: '' }, { field: 'image', name: 'a.png', type: 'image/png', data }) });
      expect(res.status, res.text).toBe(200);
      return res.body.data as { id: number; url: string; thumb_url: string };
    };
    const remove = async (id: number) => expect((await server.request('DELETE', `/api/v1/products/${productId}/images/${id}`, { token })).status).toBe(200);
    const stored = async (key: string) => (await server.ctx.storage.stat(key)) !== undefined;

    it('a deleted image keeps its file through the grace period; then the sweep removes it, but not bytes another image shares', async () => {
      const shared = await png('#0a7');
      const a = await upload(shared);
      const b = await upload(shared);
      const c = await upload(await png('#a07'));
      expect(keyOfUrl(a.url)).toBe(keyOfUrl(b.url));
      await remove(a.id);
      await remove(c.id);

      const early = await sweepUnusedFiles(server.ctx, GRACE_MS);
      expect(early.deleted).toEqual([]);
      expect(await stored(keyOfUrl(c.url))).toBe(true);
      expect((await fetch(`${server.url}${c.url}`)).status).toBe(200);

      await pastGrace();
      const later = await sweepUnusedFiles(server.ctx, GRACE_MS);
      expect(later.deleted.sort()).toEqual([keyOfUrl(c.url), keyOfUrl(c.thumb_url)].sort());
      expect(await stored(keyOfUrl(c.url))).toBe(false);
      expect(await stored(keyOfUrl(c.thumb_url))).toBe(false);
      expect((await fetch(`${server.url}${c.url}`)).status).toBe(404);
      // b still uses the bytes a had.
      expect((await fetch(`${server.url}${b.url}`)).status).toBe(200);
      expect((await fetch(`${server.url}${b.thumb_url}`)).status).toBe(200);

      await remove(b.id);
      await sweepUnusedFiles(server.ctx, GRACE_MS);
      expect(await stored(keyOfUrl(b.url))).toBe(false);
    });

    it('the same bytes uploaded again before the sweep, or while it is deleting, keep their file', async () => {
      const bytes = await png('#07a');
      const first = await upload(bytes);
      await remove(first.id);
      await pastGrace();
      const again = await upload(bytes);
      expect(keyOfUrl(again.url)).toBe(keyOfUrl(first.url));
      expect((await sweepUnusedFiles(server.ctx, GRACE_MS)).deleted).toEqual([]);
      expect((await fetch(`${server.url}${again.url}`)).status).toBe(200);

      // The race the grace period is for: the sweep has found the file old and unused, and the
      // same image is uploaded (file written, row inserted) just before its delete runs.
      const other = await png('#7a0');
      const gone = await upload(other);
      await remove(gone.id);
      await pastGrace();
      let raced: { id: number; url: string } | undefined;
      const real = server.ctx.storage;
      const racing: FileStorage = Object.assign(Object.create(real) as FileStorage, {
        async delete(key: string, opts?: { writtenBefore?: Date }) {
          if (key === keyOfUrl(gone.url) && !raced) raced = await upload(other);
          return real.delete(key, opts);
        },
      });
      const swept = await sweepUnusedFiles({ ...server.ctx, storage: racing } as AppContext, GRACE_MS);
      expect(raced).toBeDefined();
      expect(swept.deleted).not.toContain(keyOfUrl(gone.url));
      expect((await fetch(`${server.url}${raced!.url}`)).status).toBe(200);
    });
  });
}

describe('generated work and delivery packages under the sweep', () => {
  let server: TestServer;
  let ws: Workspace;
  let taskId: number;

  beforeAll(async () => {
    server = await startTestServer();
    ws = await workspaceWithProduct(server);
    taskId = (await createTask(server, ws, { text_count: 1, image_count: 3 })).id;
    const detail = await settledDetail(server, ws.token, taskId);
    expect(detail.status).toBe('pending_selection');
    await ok(server, 'POST', `/tasks/${taskId}/text-candidates/select`, ws.token, { candidate_id: detail.text_candidates[0].candidate_id });
  }, 120_000);
  afterAll(async () => server?.close());

  const packageOf = async (token: string) => {
    const created = await ok(server, 'POST', `/tasks/${taskId}/package`, token, {});
    const pkg = await waitFor(async () => {
      const view = await ok(server, 'GET', `/delivery-packages/${created.delivery_package_id}/download`, token);
      return view.status === 'pending' ? undefined : view;
    }, 30_000);
    expect(pkg.status).toBe('ready');
    const row = await server.ctx.db.selectFrom('delivery_packages').select('file_key').where('id', '=', pkg.id).executeTakeFirstOrThrow();
    return { ...pkg, key: row.file_key! };
  };

  it('keeps every file generation uses: image candidates, raw images in the paid-call ledger, fission images', async () => {
    const created = await ok(server, 'POST', '/fission', ws.token, { source_task_id: taskId, fanout_count: 1 });
    expect((await settledFission(server, ws.token, created.fission_id)).status).toBe('completed');
    const fissionKeys = (await notesOf(server, ws.token, created.fission_id)).notes.flatMap((n: any) => n.images.filter((i: any) => i.url).map((i: any) => keyOfUrl(i.url)));
    const candidateKeys = (await server.ctx.db.selectFrom('image_candidates').select('file_key').where('task_id', 'is not', null).execute()).map((r) => r.file_key);
    const ledgerKeys = (await server.ctx.db.selectFrom('provider_calls').select('file_key').where('file_key', 'is not', null).execute()).map((r) => r.file_key!);
    expect(fissionKeys.length).toBeGreaterThan(0);
    expect(candidateKeys.length).toBe(3);
    // Lettered images are new files: the provider's raw ones are held by the ledger alone.
    expect(ledgerKeys.filter((k) => !candidateKeys.includes(k) && !fissionKeys.includes(k)).length).toBeGreaterThan(0);

    await pastGrace();
    const swept = await sweepUnusedFiles(server.ctx, GRACE_MS);
    expect(swept.examined).toBeGreaterThanOrEqual(new Set([...fissionKeys, ...candidateKeys, ...ledgerKeys]).size);
    expect(swept.deleted).toEqual([]);
    for (const key of [...fissionKeys, ...candidateKeys, ...ledgerKeys]) expect(await server.ctx.storage.stat(key), key).toBeDefined();
  });

  it('removes an expired package’s zip, whose download then answers 409 / 40903; a live package keeps its zip', async () => {
    const expiring = await packageOf(ws.token);
    server.clock.advance(7 * 24 * 3600 * 1000 + 60_000);
    // Tokens live 12 hours: log in again in the moved time.
    const login = await server.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_NEW_PASSWORD } });
    const token = login.body.data.token as string;
    const live = await packageOf(token);
    expect(live.key).not.toBe(expiring.key);

    await pastGrace();
    const swept = await sweepUnusedFiles(server.ctx, GRACE_MS);
    expect(swept.deleted).toEqual([expiring.key]);
    expect(await server.ctx.storage.stat(expiring.key)).toBeUndefined();
    expect(await server.ctx.storage.stat(live.key)).toBeDefined();

    const path = `/api/v1/delivery-packages/${expiring.id}`;
    const file = await server.request('GET', `${path}/download-file`, { token });
    expect([file.status, file.body.code]).toEqual([409, 40903]);
    const ticket = await server.request('POST', `${path}/download-token`, { token });
    expect([ticket.status, ticket.body.code]).toEqual([409, 40903]);
    const view = (await server.request('GET', `${path}/download`, { token })).body.data;
    expect(view).toMatchObject({ status: 'ready', download_url: null, expires_at: expiring.expires_at });

    const liveFile = await fetch(`${server.url}${live.download_url}`, { headers: { authorization: `Bearer ${token}` } });
    expect(liveFile.status).toBe(200);
  });
  it('knows every column that holds a stored file: a scan of every table finds file keys only in FILE_KEY_COLUMNS', async () => {
    // The test before moved the clock past the first token's life.
    const token = (await server.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_NEW_PASSWORD } })).body.data.token as string;
    const upload = async (path: string, field: string, color: string) => {
      const res = await server.request('POST', `/api/v1${path}`, { token, raw: form({ scene: '' }, { field, name: 'a.png', type: 'image/png', data: await png(color) }) });
      expect(res.status, res.text).toBe(200);
    };
    await upload(`/products/${ws.productId}/images`, 'image', '#3a5');
    await upload(`/products/${ws.productId}/benchmarks/upload`, 'screenshot', '#5a3');

    const stored = new Set<string>();
    for await (const file of server.ctx.storage.list()) stored.add(file.key);
    // Every text value of every row, whatever its column's name: a file column named like
    // anything else is found by what it holds.
    const holders = new Set<string>();
    for (const table of await server.ctx.db.introspection.getTables()) {
      if (table.name.startsWith('kysely_')) continue;
      const rows = await (server.ctx.db as any).selectFrom(table.name).selectAll().execute();
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) if (typeof value === 'string' && stored.has(value)) holders.add(`${table.name}.${column}`);
      }
    }
    const declared = Object.entries(FILE_KEY_COLUMNS).flatMap(([table, columns]) => Object.keys(columns).map((column) => `${table}.${column}`));
    expect([...holders].filter((column) => !declared.includes(column))).toEqual([]);
    // The scan itself sees files where this workspace's work put them.
    expect([...holders].sort()).toEqual(
      expect.arrayContaining(['benchmarks.screenshot_key', 'delivery_packages.file_key', 'image_candidates.file_key', 'product_images.file_key', 'product_images.thumb_key', 'provider_calls.file_key']),
    );
  });
});

describe('the sweep in the worker', () => {
  it('runs on its own with FILE_SWEEP_MS and FILE_SWEEP_GRACE_MS', async () => {
    const server = await startTestServer({ env: { FILE_SWEEP_MS: '200', FILE_SWEEP_GRACE_MS: '300' } });
    try {
      const token = await server.adminToken();
      const productId = (await ok(server, 'POST', '/products', token, { name: 'P', category: 'c', source: 'custom' })).id;
      const res = await server.request('POST', `/api/v1/products/${productId}/images`, { token, raw: form({ scene: '' }, { field: 'image', name: 'a.png', type: 'image/png', data: await png('#777') }) });
      expect(res.status, res.text).toBe(200);
      const key = keyOfUrl(res.body.data.url);
      expect((await server.request('DELETE', `/api/v1/products/${productId}/images/${res.body.data.id}`, { token })).status).toBe(200);
      await waitFor(async () => ((await server.ctx.storage.stat(key)) === undefined ? true : undefined), 10_000);
    } finally {
      await server.close();
    }
  });

  it('reads its settings from the environment: an hour each by default, a bad value stops the start', () => {
    expect(fileSweepOptionsFrom({})).toEqual({ intervalMs: 3_600_000, graceMs: 3_600_000 });
    expect(fileSweepOptionsFrom({ FILE_SWEEP_MS: '60000', FILE_SWEEP_GRACE_MS: '0' })).toEqual({ intervalMs: 60_000, graceMs: 0 });
    expect(() => fileSweepOptionsFrom({ FILE_SWEEP_GRACE_MS: 'soon' })).toThrow(/FILE_SWEEP_GRACE_MS/);
    expect(() => fileSweepOptionsFrom({ FILE_SWEEP_MS: '10' })).toThrow(/FILE_SWEEP_MS/);
  });
});

describe('migration 20261123_0100_file_references', () => {
  it('fills provider_calls.file_key from the stored image results already in the ledger, and goes back down', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-migrate-'));
    const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
    const database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('20261122_1200_task_list_indexes')).error).toBeUndefined();
      const now = new Date().toISOString();
      const ws = await database.db.insertInto('workspaces').values({ name: 'W', slug: 'w', created_at: now }).returning('id').executeTakeFirstOrThrow();
      const image = `${'c'.repeat(64)}.png`;
      const ledger = [
        ['task:1:gen:1:image:A:1', { file_key: image, mime: 'image/png' }],
        ['task:1:gen:1:text:A', { notes: [{ title: 'not a file' }] }],
        ['fission:1:plan', 'a plain string'],
      ] as const;
      for (const [key, result] of ledger) {
        await database.db
          .insertInto('provider_calls')
          .values({ call_key: key, workspace_id: ws.id, result: JSON.stringify(result), created_at: now })
          .execute();
      }
      expect((await migrator.migrateTo('20261123_0100_file_references')).error).toBeUndefined();
      const rows = await database.db.selectFrom('provider_calls').select(['call_key', 'file_key']).orderBy('call_key').execute();
      expect(rows).toEqual([
        { call_key: 'fission:1:plan', file_key: null },
        { call_key: 'task:1:gen:1:image:A:1', file_key: image },
        { call_key: 'task:1:gen:1:text:A', file_key: null },
      ]);
      expect((await migrator.migrateTo('20261122_1200_task_list_indexes')).error).toBeUndefined();
      expect((await migrator.migrateTo('20261123_0100_file_references')).error).toBeUndefined();
    } finally {
      await database.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

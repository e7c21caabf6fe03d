import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../helpers/migration.js';
import { startTestServer, usingPostgres, type TestServer } from '../helpers/server.js';
import { API, ok } from '../tasks/fixtures.js';

/**
 * Contract-decisions §9: a new workspace starts with the legal baseline active (absolute claims,
 * medical claims for non-medical products, diversion); a team may relax a word, never start from
 * nothing. Through the HTTP API of a workspace created a moment ago, which nobody configured.
 */
describe('the legal baseline of a new workspace', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    const admin = await server.adminToken();
    const ws = await ok(server, 'POST', '/workspaces', admin, { name: '新品牌', slug: 'fresh-brand' });
    token = (await ok(server, 'POST', '/workspaces/switch', admin, { workspace_id: ws.id })).token;
    await ok(server, 'POST', '/api-keys', token, { provider: 'local', api_key: 'local-test-key' });
  });
  afterAll(async () => {
    await server?.close();
  });

  const product = (category: string) => ok(server, 'POST', '/products', token, { name: '云朵保湿霜', category, source: 'custom' });
  const createTask = (productId: number, theme: string) =>
    server.request('POST', `${API}/tasks`, { token, body: { product_id: productId, theme, text_count: 3, image_count: 0, track: 'ai' } });

  it('lists the three baseline lists as locked words, and not the optional inducement list', async () => {
    const words = (await ok(server, 'GET', '/banned-words?page_size=100&q=国家级', token)).items;
    expect(words.map((w: { word: string; level: string; updatable: boolean }) => [w.word, w.level, w.updatable])).toEqual([['国家级', 'hard_block', false]]);
    for (const [word, level] of [['医用级', 'hard_block'], ['加微', 'hard_block'], ['最佳', 'auto_fix']]) {
      const found = (await ok(server, 'GET', `/banned-words?page_size=100&q=${encodeURIComponent(word!)}`, token)).items;
      expect(found.find((w: { word: string }) => w.word === word)?.level).toBe(level);
    }
    expect((await ok(server, 'GET', '/banned-words?page_size=100&q=抽奖', token)).items).toEqual([]);
  });

  it('blocks absolute and medical claims in their disguises before anything is generated', async () => {
    const skincare = await product('护肤');
    for (const theme of ['医用级修护面霜', '國家級認證好物', '国 家 级 认证', '想要同款加微聊']) {
      const res = await createTask(skincare.id, theme);
      expect({ theme, status: res.status, code: res.body.code }).toEqual({ theme, status: 422, code: 42202 });
    }
    expect((await createTask(skincare.id, '换季保湿面霜')).status).toBe(200);
  });

  it('spares a medical product the medical-claim words, but not the absolute claims', async () => {
    const device = await product('医疗器械');
    expect((await createTask(device.id, '医用级敷料的正确用法')).status).toBe(200);
    expect((await createTask(device.id, '国家级敷料')).status).toBe(422);
  });

  it('lets an admin relax a baseline word', async () => {
    const [word] = (await ok(server, 'GET', '/banned-words?page_size=100&q=万能', token)).items;
    await ok(server, 'PUT', `/banned-words/${word.id}`, token, { word: '万能', level: 'soft_warn' });
    const skincare = await product('护肤');
    expect((await createTask(skincare.id, '万能面霜')).status).toBe(200);
  });
});

describe('migration 20261128_0800_legal_baseline', () => {
  it('gives a workspace that never chose a word the baseline, leaves a configured one as it was, and tags imported words', async () => {
    const { db, migrator, now, workspaceId, close } = await databaseBefore('20261128_0300_connection_options', { image_count: 0 });
    try {
      const fresh = await db.insertInto('workspaces').values({ name: 'F', slug: 'f', created_at: now }).returning('id').executeTakeFirstOrThrow();
      const locked = usingPostgres ? false : 0;
      await db.insertInto('banned_words').values([
        { workspace_id: workspaceId, word: '根治', level: 'hard_block', updatable: locked, created_at: now, updated_at: now },
        { workspace_id: workspaceId, word: '我们的词', level: 'soft_warn', updatable: usingPostgres ? true : 1, created_at: now, updated_at: now },
      ]).execute();

      expect((await migrator.migrateTo('20261128_0800_legal_baseline')).error).toBeUndefined();
      const words = (ws: number) => db.selectFrom('banned_words').select(['word', 'level', 'preset']).where('workspace_id', '=', ws).orderBy('word').execute();
      expect(await words(workspaceId)).toEqual([
        { word: '我们的词', level: 'soft_warn', preset: null },
        { word: '根治', level: 'hard_block', preset: 'health-claims' },
      ]);
      const seeded = await words(fresh.id);
      expect(seeded.find((w) => w.word === '国家级')).toEqual({ word: '国家级', level: 'hard_block', preset: 'ad-law' });
      expect(seeded.find((w) => w.word === '医用级')).toEqual({ word: '医用级', level: 'hard_block', preset: 'health-claims' });
      expect(seeded.find((w) => w.word === '二维码')).toEqual({ word: '二维码', level: 'hard_block', preset: 'xhs-diversion' });
      expect(seeded.find((w) => w.word === '抽奖')).toBeUndefined();

      expect((await migrator.migrateTo('20261128_0400_link_tables')).error).toBeUndefined();
      expect(await db.selectFrom('banned_words').select(['word']).where('workspace_id', '=', workspaceId).orderBy('word').execute()).toEqual([{ word: '我们的词' }, { word: '根治' }]);
    } finally {
      await close();
    }
  });
});

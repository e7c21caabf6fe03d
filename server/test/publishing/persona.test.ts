import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fissionPrompt, type FissionIntentInput } from '../../src/content/fission.js';
import { settledDetail } from '../generation/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTask, ok, otherWorkspace, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';

/** A task or fission meant for an account writes in the account's persona (contract-decisions §11). */

let server: TestServer;
let ws: Workspace;

beforeAll(async () => {
  server = await startTestServer();
  ws = await workspaceWithProduct(server);
});
afterAll(() => server?.close());

const PERSONA = '北漂五年的通勤白领，说话干脆，爱用数据说话，不用感叹号';

describe('an account\'s persona', () => {
  it('reaches the writer\'s prompt of a task meant for the account', async () => {
    const account = await ok(server, 'POST', '/accounts', ws.token, { name: '通勤号', persona: PERSONA });
    const task = await createTask(server, ws, { account_id: account.id, text_count: 1, image_count: 0 });
    const detail = await settledDetail(server, ws.token, task.id);
    expect(detail.status).toBe('pending_selection');
    const audit = await ok(server, 'GET', `/tasks/${task.id}/audit`, ws.token);
    const prompts = audit.items.filter((e: any) => e.action === 'notes_prompt').map((e: any) => JSON.stringify(e.detail));
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.every((p: string) => p.includes('发布账号「通勤号」的人设') && p.includes(PERSONA))).toBe(true);

    // A task meant for no account says nothing of one.
    const plain = await createTask(server, ws, { text_count: 1, image_count: 0 });
    await settledDetail(server, ws.token, plain.id);
    const plainAudit = await ok(server, 'GET', `/tasks/${plain.id}/audit`, ws.token);
    expect(JSON.stringify(plainAudit.items)).not.toContain('人设');
  });

  it('refuses an account of another workspace (404), a deactivated one (409), and a persona with a hard-blocked word (422)', async () => {
    const other = await otherWorkspace(server);
    const foreign = await ok(server, 'POST', '/accounts', other.token, { name: '别家号' });
    const body = { product_id: ws.productId, theme: '秋冬换季护肤', text_count: 1, image_count: 0, track: 'ai' };
    const foreignRes = await server.request('POST', '/api/v1/tasks', { token: ws.token, body: { ...body, account_id: foreign.id } });
    expect([foreignRes.status, foreignRes.body.reason]).toEqual([404, 'account.not_found']);
    const off = await ok(server, 'POST', '/accounts', ws.token, { name: '停用号' });
    await ok(server, 'PATCH', `/accounts/${off.id}`, ws.token, { active: false });
    const offRes = await server.request('POST', '/api/v1/tasks', { token: ws.token, body: { ...body, account_id: off.id } });
    expect([offRes.status, offRes.body.reason]).toEqual([409, 'account.inactive']);
    // 第一 is in the legal baseline every workspace starts with (an absolute claim).
    const loud = await ok(server, 'POST', '/accounts', ws.token, { name: '夸张号', persona: '全网第一的护肤博主' });
    const loudRes = await server.request('POST', '/api/v1/tasks', { token: ws.token, body: { ...body, account_id: loud.id } });
    expect(loudRes.status).toBe(422);
  });

  it('is part of a fission\'s prompt when the fission is meant for the account', () => {
    const input: FissionIntentInput = {
      seed: 'fission:1',
      count: 1,
      reference_level: 'mid' as const,
      product: { name: '云朵保湿霜', category: '护肤', selling_points: ['48小时保湿'], style_tone: null, text_angles: [], custom_prompt: null },
      theme: '秋冬换季护肤',
      benchmarks: [],
      preferences: { recent_preference: '', reject_reasons: [], style_examples: [] },
      avoid_words: [],
      source: { title: '标题', content: '正文', tags: ['护肤'], angle_label: '角度', strategy: 'A' as const, image_roles: [] },
      packages: [{ seq: 1, strategy: 'B' as const, strategy_name: '干货测评', image_roles: [] }],
    };
    expect(fissionPrompt({ ...input, account: { name: '通勤号', persona: PERSONA } }).prompt).toContain(PERSONA);
    expect(fissionPrompt(input).prompt).not.toContain('人设');
  });
});

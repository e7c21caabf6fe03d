import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, otherWorkspace, setStatus, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { defaultNote, startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { taskDetail } from './helpers.js';

/**
 * Everything printed on a picture or sent to an image model is held to the banned words
 * (contract-decisions §9), through the HTTP API and a model that misbehaves the way a real
 * review found: captions lettered 医用级修护才安心, 加微信领小样, 最温和的质地 and a before/after
 * shot. And the operator's caption of a slide (§8): edited, lettered again from the original.
 */
describe('captions and shots', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let ws: Workspace;
  let taskId: number;
  const images = () => taskDetail(server, ws.token, taskId).then((d) => d.image_candidates as any[]);
  const row = (id: number) => server.ctx.db.selectFrom('image_candidates').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const patch = (id: number, caption: unknown, token = ws.token, task = taskId) =>
    server.request('PATCH', `${API}/tasks/${task}/image-candidates/${id}`, { token, body: { caption } });

  beforeAll(async () => {
    fake = await startFakeOpenAI({
      note: (index, opts) => ({
        ...defaultNote(index, opts),
        image_brief: '清晨浴室，柔和自然光',
        image_plan:
          index === 0
            ? [
                { role: 'hook', brief: '[hook] 洗手台上的面霜', caption: '' },
                { role: 'pain', brief: '[pain] 换季脸颊发红的早晨', caption: '医用级修护才安心' },
                { role: 'proof', brief: '对比拼图：使用前后肌肤状态，左边泛红右边透亮', caption: '加微信领小样' },
                { role: 'quality', brief: '[quality] 医用级面霜质地特写', caption: '最温和的质地' },
                { role: 'convert', brief: '[convert] 面霜摆在床头', caption: '睡前抹一层' },
              ]
            : [],
      }),
    });
    server = await startTestServer({ worker: false, env: { ALLOW_PRIVATE_PROVIDER_URLS: '1', PROVIDER_MAX_RETRIES: '0', PROVIDER_RETRY_BASE_MS: '10' } });
    // The workspace has the legal baseline it started with: 医用级 and 微信 block, 最 warns.
    ws = await workspaceWithProduct(server, { apiKey: false, product: { name: '云朵面霜', selling_points: ['神经酰胺修护屏障', '质地轻薄'] } });
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai-compatible', api_key: 'sk-test-not-real-1234', base_url: fake.url, text_model: 'gpt-4.1-mini', image_model: 'gpt-image-1' });
    taskId = (await createTask(server, ws, { text_count: 1, image_count: 5 })).id as number;
    await runTaskGeneration(server.ctx, taskId);
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it('a caption that breaks a word is never drawn, a before/after or blocked shot never reaches the image model', async () => {
    const prompts = fake.calls.filter((c) => c.kind === 'image').map((c) => c.prompt);
    expect(prompts).toHaveLength(5);
    for (const prompt of prompts) expect(prompt).not.toMatch(/使用前后|对比拼图|医用级|微信/);
    // The clean shots go as written; the others leave the role's own direction alone.
    expect(prompts.filter((p) => p.includes('[pain]'))).toHaveLength(1);
    expect(prompts.filter((p) => p.includes('Shot:'))).toHaveLength(3);
    expect(prompts.every((p) => p.includes('清晨浴室，柔和自然光'))).toBe(true);

    const board = (await images()).sort((a, b) => a.seq - b.seq);
    expect(board.map((i) => [i.role, i.status, i.caption])).toEqual([
      ['hook', 'done', '换季补水秘诀'],
      // The slides tell the body in posting order (issue 29): its sentences after the opening line, each cut at its first clause.
      ['pain', 'done', '这款面膜玻尿酸深层补水'],
      ['proof', 'done', '质地清爽不黏腻'],
      // Past the body's pieces, the model's caption for the frame, unless it breaks a word (最 warns).
      ['quality', 'done', null],
      ['convert', 'done', '睡前抹一层'],
    ]);
  });

  it('the operator letters a slide from its original; a hard-blocked caption is refused; "" removes it', async () => {
    const board = (await images()).sort((a, b) => a.seq - b.seq);
    const bare = board[3]!;
    const lettered = board[4]!;
    const before = await row(lettered.candidate_id);

    const renamed = await patch(lettered.candidate_id, '出门前抹一层');
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data).toMatchObject({ candidate_id: lettered.candidate_id, caption: '出门前抹一层' });
    const after = await row(lettered.candidate_id);
    // Drawn anew on the same original, never over the old caption.
    expect(after.raw_file_key).toBe(before.raw_file_key);
    expect(after.file_key).not.toBe(before.file_key);
    expect(after.file_key).not.toBe(after.raw_file_key);

    // A slide drawn without a caption gets one on its own (bare) file, which becomes its original.
    const bareBefore = await row(bare.candidate_id);
    const captioned = await patch(bare.candidate_id, ' 早晚各 一次 ');
    expect(captioned.status, captioned.text).toBe(200);
    expect(captioned.body.data.caption).toBe('早晚各 一次');
    expect((await row(bare.candidate_id)).raw_file_key).toBe(bareBefore.file_key);

    const blocked = await patch(bare.candidate_id, '醫用 级修护才安心');
    expect(blocked.status).toBe(422);
    expect(blocked.body).toMatchObject({ code: 42202, reason: 'image.caption_hard_blocked', params: { words: ['医用级'] } });
    expect((await row(bare.candidate_id)).lettered_title).toBe('早晚各 一次');
    const long = await patch(bare.candidate_id, '一二三四五六七八九十一二三');
    expect(long.status).toBe(400);
    expect(long.body.message).toContain('at most 12');
    const cover = await patch(board[0]!.candidate_id, '封面新标题');
    expect(cover.status).toBe(409);
    expect(cover.body.reason).toBe('image.caption_on_cover');

    const removed = await patch(lettered.candidate_id, '');
    expect(removed.status).toBe(200);
    expect(removed.body.data.caption).toBeNull();
    const bared = await row(lettered.candidate_id);
    expect(bared.file_key).toBe(bared.raw_file_key);
    expect((await images()).find((i) => i.candidate_id === lettered.candidate_id)!.caption).toBeNull();
  });

  it('follows the task rules: any writing role, not a read-only token, not another workspace, only in pending_selection', async () => {
    const slide = (await images()).find((i) => i.role === 'convert')!;
    const operator = await userWithRole(server, 'caption-operator', 'operator');
    const byOperator = await patch(slide.candidate_id, '睡前抹一层', operator.token);
    expect(byOperator.status, byOperator.text).toBe(200);
    expect(byOperator.body.data.caption).toBe('睡前抹一层');

    const readOnly = await ok(server, 'POST', '/auth/tokens', ws.token, { name: '只读', scopes: ['read'] });
    expect((await patch(slide.candidate_id, '睡前', readOnly.token)).status).toBe(403);

    const foreign = await otherWorkspace(server);
    const fromElsewhere = await patch(slide.candidate_id, '睡前', foreign.token);
    expect(fromElsewhere.status).toBe(404);
    const otherTask = (await createTask(server, ws, { text_count: 1, image_count: 0 })).id as number;
    const wrongTask = await patch(slide.candidate_id, '睡前', ws.token, otherTask);
    expect(wrongTask.status).toBe(404);
    expect(wrongTask.body.reason).toBe('image.not_found');

    await setStatus(server, taskId, 'pending_review');
    const late = await patch(slide.candidate_id, '睡前');
    expect(late.status).toBe(409);
    await setStatus(server, taskId, 'pending_selection');
  });
});

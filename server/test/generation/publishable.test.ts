import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { length } from '../../src/content/text.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, seedCandidates, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { defaultNote, startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { taskDetail } from './helpers.js';

/**
 * What a published note must satisfy (contract-decisions §9), through the HTTP API: edits and
 * imports refused with 400 naming the limit (an import's long body kept and flagged), and a
 * model's over-long or Markdown-laden note fixed by one rewrite, never cut mid-word.
 */
describe('published note limits', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    server = await startTestServer({
      worker: false,
      env: { ALLOW_PRIVATE_PROVIDER_URLS: '1', PROVIDER_MAX_RETRIES: '0', PROVIDER_RETRY_BASE_MS: '10' },
    });
    ws = await workspaceWithProduct(server, { apiKey: false, product: { name: '晚安面膜', selling_points: ['玻尿酸深层补水', '质地清爽不黏腻'] } });
    // An OpenAI-compatible endpoint with a model that takes a temperature (GPT-5, the openai preset's, takes only its default).
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai-compatible', api_key: 'sk-test-not-real-1234', base_url: fake.url, text_model: 'gpt-4.1-mini', image_model: 'gpt-image-1' });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  const call = (path: string, body: unknown) => server.request('POST', `${API}${path}`, { token: ws.token, body });

  it('an edit over a limit is refused with 400 naming it; Markdown and hashtags are cleaned, emoji count once', async () => {
    const task = await createTask(server, ws);
    const { texts } = await seedCandidates(server, ws, task.id);
    const edit = (body: Record<string, unknown>) => call(`/tasks/${task.id}/text-candidates/${texts[0]}/edit`, body);

    const longTitle = await edit({ content: '正文', title: '一二三四五六七八九十一二三四五六七八九十一' });
    expect(longTitle.status).toBe(400);
    expect(longTitle.body.message).toContain('title is 21 characters; the limit is 20');
    const longBody = await edit({ content: '好'.repeat(1001) });
    expect(longBody.status).toBe(400);
    expect(longBody.body.message).toContain('the limit is 1000');
    const manyTags = await edit({ content: '正文', tags: Array.from({ length: 11 }, (_, i) => `标签${i}`) });
    expect(manyTags.status).toBe(400);
    expect(manyTags.body.message).toContain('11 tags; the limit is 10');

    // 20 graphemes, 28 code points: the emoji sequences count once each, so it fits.
    const emojiTitle = '熬夜党救星😮‍💨换季补水必看👨‍👩‍👧姐妹们冲呀';
    expect(length(emojiTitle)).toBeLessThanOrEqual(20);
    const edited = await edit({ content: '**重点**：补水很稳\n- 不黏腻\n\n#换季护肤 #面膜', title: emojiTitle, tags: ['#晚安 面膜'] });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({ title: emojiTitle, content: '重点：补水很稳\n不黏腻', tags: ['晚安面膜', '换季护肤', '面膜'] });
    expect(edited.body.data.summary).toContain('话题标签 3 个');
  });

  it('an import keeps a long body and flags it, refuses a long title, derives a whole-word title', async () => {
    const task = await createTask(server, ws, { track: 'import', text_count: 3 });
    const body = '这是我从别处写好的一篇笔记。'.repeat(80);
    const kept = await call(`/tasks/${task.id}/import-text`, { content: body, angle_label: '外部' });
    expect(kept.status).toBe(200);
    expect(kept.body.data.content).toBe(body);
    expect(kept.body.data.summary).toContain('超过 1000 字上限');
    const refused = await call(`/tasks/${task.id}/import-text`, { content: '正文', angle_label: '外部', title: '标'.repeat(21) });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('the limit is 20');
    const derived = await call(`/tasks/${task.id}/import-text`, { content: '## 换季护肤必看熬夜党的秘密武器大公开真的绝了\n正文', angle_label: '外部' });
    expect(derived.status).toBe(200);
    const title = derived.body.data.title as string;
    expect(length(title)).toBeLessThanOrEqual(20);
    expect(title).not.toContain('#');
    expect(title).not.toMatch(/武器大$/);
  });

  it('a model note over its limits is rewritten once, asked to shorten; Markdown and hashtags never reach the text', async () => {
    const longTitle = '换季护肤必看｜熬夜党的秘密武器大公开真的绝了姐妹们';
    fake.options = {
      note: (index, opts) => {
        const base = defaultNote(index, opts);
        if (opts.prompt.includes('超过 20 字上限')) return { ...base, title: '熬夜党的补水秘密武器✨', cover_title: '补水秘密武器' };
        return { ...base, title: longTitle, cover_title: '熬夜党的秘密武器大公开啦！', content: `**划重点**\n${base.content}\n\n#换季护肤 #补水面膜` };
      },
    };
    const taskId = (await createTask(server, ws, { text_count: 1, image_count: 0 })).id as number;
    await runTaskGeneration(server.ctx, taskId);
    const [text] = (await taskDetail(server, ws.token, taskId)).text_candidates as any[];
    expect(text).toMatchObject({ title: '熬夜党的补水秘密武器✨', cover_title: '补水秘密武器' });
    const rewrite = fake.calls.filter((c) => c.prompt.includes('超过 20 字上限'));
    expect(rewrite).toHaveLength(1);
    expect(rewrite[0]!.prompt).toContain('封面标题有 13 字');
  });

  it('when the rewrite is still too long, the title is shortened between words and the cover is a whole phrase', async () => {
    const longTitle = '换季护肤必看｜熬夜党的秘密武器大公开真的绝了姐妹们';
    fake.options = {
      note: (index, opts) => ({ ...defaultNote(index, opts), title: longTitle, cover_title: '周末野餐带什么保温杯推荐合集', content: `## 标题\n${defaultNote(index, opts).content}\n#换季护肤` }),
    };
    const taskId = (await createTask(server, ws, { text_count: 1, image_count: 0 })).id as number;
    await runTaskGeneration(server.ctx, taskId);
    const [text] = (await taskDetail(server, ws.token, taskId)).text_candidates as any[];
    expect(length(text.title)).toBeLessThanOrEqual(20);
    expect(longTitle.startsWith(text.title)).toBe(true);
    expect(text.title).not.toMatch(/武器大$/);
    expect(text.cover_title).toBe('换季护肤必看');
    expect(text.content).not.toMatch(/^#|\n#|##/);
    expect(text.tags).toContain('换季护肤');
  });

  it('the first note plans each image: its own shot per frame, the product in words, no before/after', async () => {
    fake.options = {
      note: (index, opts) => ({
        ...defaultNote(index, opts),
        image_plan:
          index === 0
            ? [
                { role: 'hook', brief: '[shot-hook] 台灯下的女生拿着面膜', caption: '熬夜党的睡前一步' },
                { role: 'pain', brief: '[shot-pain] 凌晨一点揉眼睛', caption: '熬到凌晨脸发干？' },
                { role: 'convert', brief: '[shot-convert] 面膜摆在床头', caption: '睡前最后一步' },
              ]
            : [],
      }),
    };
    const before = fake.calls.length;
    const taskId = (await createTask(server, ws, { text_count: 1, image_count: 3 })).id as number;
    await runTaskGeneration(server.ctx, taskId);
    const calls = fake.calls.slice(before);
    const notesCall = calls.find((c) => c.kind === 'notes')!.prompt;
    expect(notesCall).toContain('第 1 篇依次给出 3 张配图，角色为 hook, pain, convert');
    const images = calls.filter((c) => c.kind === 'image').map((c) => c.prompt);
    expect(images).toHaveLength(3);
    for (const role of ['hook', 'pain', 'convert']) expect(images.filter((p) => p.includes(`[shot-${role}]`))).toHaveLength(1);
    for (const p of images) {
      expect(p).toContain('Product: 晚安面膜 (护肤).');
      expect(p).toContain('No before/after comparisons');
      expect(p).toContain('Add no text of your own');
    }
  });

  describe('the judge and the compliance gate', () => {
    beforeAll(async () => {
      for (const preset of ['ad-law', 'health-claims']) await ok(server, 'POST', `/banned-words/presets/${preset}/import`, ws.token);
    });

    it('a hard-blocked note never passes, whatever the judge scores; the judge works at temperature 0 with the computed facts', async () => {
      // Blocked words in every version, rewrite included, spelled in traditional characters once.
      fake.options = { note: (index, opts) => ({ ...defaultNote(index, opts), content: `${defaultNote(index, opts).content}\n國家級配方，用完痘痘治愈了` }) };
      const before = fake.calls.length;
      const taskId = (await createTask(server, ws, { text_count: 1, image_count: 0 })).id as number;
      await runTaskGeneration(server.ctx, taskId);
      const [text] = (await taskDetail(server, ws.token, taskId)).text_candidates as any[];
      expect(text.banned_word_status).toBe('hard_block');
      // The judge said 22 + 21 + 23 + 17 + 5 = 88; the gate makes compliance 0 and keeps it below 80.
      expect(text.score.compliance).toBe(0);
      expect(text.score.total).toBeLessThan(80);
      expect(text.score.total).toBe(text.score.title + text.score.emotion + text.score.selling + text.score.keyword + text.score.compliance);
      expect(text.verdict).not.toBe('通过');
      expect(text.summary).toMatch(/^未通过合规：含禁用词（(国家级、治愈|治愈、国家级)）/);
      const calls = fake.calls.slice(before);
      expect(calls.filter((c) => c.kind === 'rewrite')).toHaveLength(1);
      const judge = calls.find((c) => c.kind === 'score')!;
      expect(judge.temperature).toBe(0);
      expect(judge.prompt).toMatch(/命中的禁用或风险词：(国家级、治愈|治愈、国家级)/);
      expect(judge.prompt).toContain('标题 12 字（上限 20）');
    });

    it('a claim the product profile does not back closes the gate after one rewrite that keeps it, and never a second', async () => {
      fake.options = { unsupportedClaims: () => ['"28天淡化细纹"不在产品资料中'] };
      const before = fake.calls.length;
      const taskId = (await createTask(server, ws, { text_count: 1, image_count: 0 })).id as number;
      await runTaskGeneration(server.ctx, taskId);
      const [text] = (await taskDetail(server, ws.token, taskId)).text_candidates as any[];
      expect(text.banned_word_status).toBe('pass');
      expect(text.score.compliance).toBe(0);
      expect(text.verdict).not.toBe('通过');
      expect(text.summary).toContain('有产品资料无法支撑的宣称（"28天淡化细纹"不在产品资料中）');
      const calls = fake.calls.slice(before);
      expect(calls.filter((c) => c.kind === 'rewrite')).toHaveLength(1);
      // The first judgement and the one of the rewrite.
      expect(calls.filter((c) => c.kind === 'score')).toHaveLength(2);

      // A re-run (a crash after the rewrite was paid) takes every call from the ledger.
      const paid = fake.calls.length;
      await server.ctx.db.updateTable('tasks').set({ status: 'generating' }).where('id', '=', taskId).execute();
      await server.ctx.db.deleteFrom('text_candidates').where('task_id', '=', taskId).execute();
      await runTaskGeneration(server.ctx, taskId);
      expect(fake.calls.length).toBe(paid);
    });

    it('a note the judge flags with a real claim is rewritten once with the claim named, and passes when the rewrite drops it', async () => {
      const claim = '用了28天细纹淡化（资料未提及）';
      fake.options = {
        note: (index, opts) => ({ ...defaultNote(index, opts), content: opts.rewrite ? defaultNote(index, opts).content : `${defaultNote(index, opts).content}\n坚持用了28天，细纹都淡化了` }),
        // The judge flags the claim wherever the text it reads still makes it.
        unsupportedClaims: (_index, prompt) => (prompt.includes('细纹都淡化了') ? [claim] : ['无']),
      };
      const before = fake.calls.length;
      const taskId = (await createTask(server, ws, { text_count: 1, image_count: 0 })).id as number;
      await runTaskGeneration(server.ctx, taskId);
      const [text] = (await taskDetail(server, ws.token, taskId)).text_candidates as any[];
      const calls = fake.calls.slice(before);
      const rewrites = calls.filter((c) => c.kind === 'rewrite');
      expect(rewrites).toHaveLength(1);
      expect(rewrites[0]!.prompt).toContain(`产品资料无法支撑的宣称：${claim}`);
      // The writer is handed the profile: what the note may claim is what it states.
      expect(rewrites[0]!.prompt).toContain('玻尿酸深层补水');
      expect(text.content).not.toContain('细纹');
      expect(text.summary).not.toContain('未通过合规');
      expect(text.score.compliance).toBeGreaterThan(0);
    });

    it('a rewrite that trades the claim for a hard-blocked word is not kept: the note stays as written, held with its claim', async () => {
      fake.options = {
        note: (index, opts) => ({ ...defaultNote(index, opts), content: opts.rewrite ? `${defaultNote(index, opts).content}\n國家級配方` : `${defaultNote(index, opts).content}\n坚持用了28天，细纹都淡化了` }),
        unsupportedClaims: (_index, prompt) => (prompt.includes('细纹都淡化了') ? ['28天淡化细纹'] : []),
      };
      const before = fake.calls.length;
      const taskId = (await createTask(server, ws, { text_count: 1, image_count: 0 })).id as number;
      await runTaskGeneration(server.ctx, taskId);
      const [text] = (await taskDetail(server, ws.token, taskId)).text_candidates as any[];
      expect(fake.calls.slice(before).filter((c) => c.kind === 'rewrite')).toHaveLength(1);
      expect(text.content).toContain('细纹都淡化了');
      expect(text.banned_word_status).toBe('pass');
      expect(text.summary).toContain('有产品资料无法支撑的宣称（28天淡化细纹）');
    });

    it('a judge answering ["无"] flags nothing: no rewrite, the note is not held', async () => {
      fake.options = { unsupportedClaims: () => ['无'] };
      const before = fake.calls.length;
      const taskId = (await createTask(server, ws, { text_count: 2, image_count: 0 })).id as number;
      await runTaskGeneration(server.ctx, taskId);
      const texts = (await taskDetail(server, ws.token, taskId)).text_candidates as any[];
      const calls = fake.calls.slice(before);
      expect(calls.filter((c) => c.kind === 'rewrite')).toHaveLength(0);
      expect(calls.filter((c) => c.kind === 'score')).toHaveLength(2);
      for (const text of texts) expect(text.summary).not.toContain('未通过合规');
    });

    it('scores from the fallback say no model judged them', async () => {
      fake.options = { failScore: 500 };
      const taskId = (await createTask(server, ws, { text_count: 1, image_count: 0 })).id as number;
      await runTaskGeneration(server.ctx, taskId);
      const [text] = (await taskDetail(server, ws.token, taskId)).text_candidates as any[];
      expect(text.summary).toMatch(/^规则评分（未经模型评审）：/);
    });
  });
});

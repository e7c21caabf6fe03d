import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { settledDetail } from '../generation/helpers.js';
import { createTask, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { settledPackage } from './fixtures.js';
import { readZip } from './zip.js';

/** From generation to an unzipped package, the way users get there (local provider, worker). */
describe('delivery end to end', () => {
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    server = await startTestServer();
    ws = await workspaceWithProduct(server);
  });
  afterAll(async () => server?.close());

  it('packs the approved selection of a generated task', async () => {
    const supervisor = await userWithRole(server, 'e2esup', 'supervisor');
    const task = await createTask(server, ws, { text_count: 3, image_count: 2 });
    const detail = await settledDetail(server, ws.token, task.id);
    expect(detail.status).toBe('pending_selection');
    const textA = detail.text_candidates.find((t: any) => t.strategy === 'A');
    const textC = detail.text_candidates.find((t: any) => t.strategy === 'C');
    for (const text of [textA, textC]) await ok(server, 'POST', `/tasks/${task.id}/text-candidates/select`, ws.token, { candidate_id: text.candidate_id });
    const imageA = detail.image_candidates.find((i: any) => i.strategy === 'A' && i.seq === 2);
    await ok(server, 'POST', `/tasks/${task.id}/image-candidates/select`, ws.token, { candidate_id: imageA.candidate_id });
    await ok(server, 'POST', `/tasks/${task.id}/submit-review`, ws.token);
    await ok(server, 'POST', `/review/${task.id}/approve`, supervisor.token);

    const created = await ok(server, 'POST', `/tasks/${task.id}/package`, ws.token);
    const pkg = await settledPackage(server, ws.token, created.delivery_package_id);
    expect(pkg.status).toBe('ready');
    expect(pkg.note_ids).toEqual([textA.candidate_id, textC.candidate_id]);
    const { token } = await ok(server, 'POST', `/delivery-packages/${pkg.id}/download-token`, ws.token);
    const res = await fetch(`${server.url}${pkg.download_url}?token=${token}`);
    expect(res.status).toBe(200);
    const entries = await readZip(Buffer.from(await res.arrayBuffer()));

    // Set A: its one selected image; set C: no image selected there, so none; set B: no text
    // selected, so no folder.
    const ext = (name: string) => name.slice(name.lastIndexOf('.'));
    const names = entries.map((e) => e.name);
    expect(names.filter((n) => n.startsWith('note_01_A/')).map((n) => n.replace(/\.\w+$/, ''))).toEqual([`note_01_A/02_${imageA.role}`, 'note_01_A/note']);
    expect(names.filter((n) => !n.startsWith('note_01_A/'))).toEqual(['note_02_C/note.txt']);
    for (const entry of entries.filter((e) => ext(e.name) !== '.txt')) {
      const meta = await sharp(entry.data).metadata();
      expect([meta.width, meta.height]).toEqual([1080, 1440]);
      expect(meta.exif).toBeUndefined();
      expect(`.${meta.format === 'jpeg' ? 'jpg' : meta.format}`).toBe(ext(entry.name));
    }
    const note = entries.find((e) => e.name === 'note_01_A/note.txt')!.data.toString('utf8');
    expect(note.startsWith('【发布提醒')).toBe(true);
    expect(note.endsWith(`${textA.title}\n\n${textA.content}\n\n${textA.tags.map((t: string) => `#${t}`).join(' ')}\n`)).toBe(true);
    expect(note).toContain('内容含 AI 生成');
  });
});

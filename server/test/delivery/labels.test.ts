import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAigc, TC260_NAMESPACE } from '../../src/images/aigc.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../generation/fake-openai.js';
import { settledDetail } from '../generation/helpers.js';
import { API, createTask, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { settledFission } from '../fission/fixtures.js';
import { settledPackage } from './fixtures.js';
import { readZip } from './zip.js';

/**
 * The implicit AI label of contract-decisions §12 (GB 45438-2025's XMP `AIGC` field), read back
 * from the bytes users download: every model-drawn image carries it, lettered or not, with the
 * provider's own provenance kept; the team's uploads carry none; camera and GPS data never leave.
 */
describe('AI content labels in delivered images', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let ws: Workspace;

  // What a real model's file may carry besides the picture: camera EXIF with a position, and
  // its own provenance in XMP (IPTC's digital source type, as OpenAI and Google write it).
  const CAMERA_AND_GPS = { IFD0: { Make: 'LeakyCam', Model: 'X1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '31/1 14/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '121/1 28/1 0/1' } };
  const IPTC_SOURCE = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
  const providerXmp = (extra = '') =>
    `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" Iptc4xmpExt:DigitalSourceType="${IPTC_SOURCE}"/>${extra}</rdf:RDF></x:xmpmeta>`;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ imageMetadata: { exif: CAMERA_AND_GPS, xmp: providerXmp() } });
    server = await startTestServer({ env: { PROVIDER_OPENAI_BASE_URL: fake.url, PROVIDER_MAX_RETRIES: '0', PROVIDER_RETRY_BASE_MS: '10' } });
    ws = await workspaceWithProduct(server, { apiKey: false, product: { name: '晚安面膜', selling_points: ['玻尿酸深层补水', '质地清爽不黏腻'] } });
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-test-not-real-1234' });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  const served = async (url: string) => Buffer.from(await (await fetch(`${server.url}${url}`)).arrayBuffer());

  async function expectLabelled(bytes: Buffer, name: string) {
    const meta = await sharp(bytes).metadata();
    expect(meta.exif, name).toBeUndefined();
    expect(bytes.includes(Buffer.from('LeakyCam')), name).toBe(false);
    const xmp = meta.xmp?.toString('utf8') ?? '';
    expect(xmp, name).toContain(TC260_NAMESPACE);
    // The provider's own provenance stays beside ours.
    expect(xmp, name).toContain(IPTC_SOURCE);
    return readAigc(meta.xmp)!;
  }

  it('labels every generated image, lettered covers included, in candidate links and in the package, with no camera or GPS data', async () => {
    const workspaceName = (await ok(server, 'GET', '/workspaces', ws.token)).items.find((w: any) => w.id === ws.workspaceId).name;
    const input = await fake.imageOf('1024x1536', false, { exif: CAMERA_AND_GPS, xmp: providerXmp() });
    expect((await sharp(input).metadata()).exif).toBeDefined();

    const task = await createTask(server, ws, { text_count: 3, image_count: 2 });
    const detail = await settledDetail(server, ws.token, task.id);
    expect(detail.status).toBe('pending_selection');
    const images = (detail.image_candidates as any[]).filter((i) => i.status === 'done');
    expect(images.length).toBe(6);
    for (const image of images) {
      const label = await expectLabelled(await served(image.url), `${image.strategy}${image.seq}`);
      expect(label).toEqual({
        Label: '1',
        ContentProducer: 'openai',
        ProduceID: `task:${task.id}:gen:1:image:${image.strategy}:${image.seq}`,
        ReservedCode1: '',
        ContentPropagator: workspaceName,
        PropagateID: `workspace:${ws.workspaceId}/task:${task.id}:gen:1:image:${image.strategy}:${image.seq}`,
        ReservedCode2: '',
      });
    }

    const textA = (detail.text_candidates as any[]).find((t) => t.strategy === 'A');
    await ok(server, 'POST', `/tasks/${task.id}/text-candidates/select`, ws.token, { candidate_id: textA.candidate_id });
    const created = await ok(server, 'POST', `/tasks/${task.id}/package`, ws.token);
    const pkg = await settledPackage(server, ws.token, created.delivery_package_id);
    expect(pkg.status).toBe('ready');
    const { token } = await ok(server, 'POST', `/delivery-packages/${pkg.id}/download-token`, ws.token);
    const entries = await readZip(await served(`${pkg.download_url}?token=${token}`));
    const pictures = entries.filter((e) => e.name.endsWith('.jpg'));
    expect(pictures.map((e) => e.name.slice(0, 13)).sort()).toEqual(['note_01_A/01_', 'note_01_A/02_']);
    for (const entry of pictures) expect((await expectLabelled(entry.data, entry.name)).ContentProducer).toBe('openai');
  }, 120_000);

  it('keeps the label a provider wrote itself and adds this service as its propagator', async () => {
    const theirs = { Label: '1', ContentProducer: '001191110108MA01KP2T5U00000', ProduceID: 'seedream-7f3a', ReservedCode1: 'sig' };
    const tc260 = `<rdf:Description rdf:about="" xmlns:TC260="${TC260_NAMESPACE}"><TC260:AIGC>${JSON.stringify(theirs).replace(/"/g, '&quot;')}</TC260:AIGC></rdf:Description>`;
    fake.options = { imageMetadata: { exif: CAMERA_AND_GPS, xmp: providerXmp(tc260) } };
    const task = await createTask(server, ws, { text_count: 3, image_count: 1 });
    const detail = await settledDetail(server, ws.token, task.id);
    const image = (detail.image_candidates as any[]).find((i) => i.strategy === 'B');
    const label = await expectLabelled(await served(image.url), 'B1');
    expect(label).toMatchObject({ ...theirs, ContentPropagator: expect.any(String), PropagateID: `workspace:${ws.workspaceId}/task:${task.id}:gen:1:image:B:1` });
    // One AIGC field, never two that disagree.
    expect((await sharp(await served(image.url)).metadata()).xmp!.toString('utf8').match(/:AIGC>/g)).toHaveLength(2);
  }, 120_000);

  it('an uploaded replacement carries no label and none of its own metadata, in the package too', async () => {
    fake.options = { imageMetadata: { exif: CAMERA_AND_GPS, xmp: providerXmp() } };
    const task = await createTask(server, ws, { text_count: 3, image_count: 1 });
    const detail = await settledDetail(server, ws.token, task.id);
    const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#4080c0' } })
      .withExif(CAMERA_AND_GPS)
      .withXmp(providerXmp())
      .jpeg()
      .toBuffer();
    const form = new FormData();
    const slot = (detail.image_candidates as any[]).find((i) => i.strategy === 'A' && i.seq === 1);
    for (const [k, v] of Object.entries({ strategy: 'A', seq: '1', role: slot.role })) form.append(k, v);
    form.append('image', new Blob([photo]), 'photo.jpg');
    const res = await server.request('POST', `${API}/tasks/${task.id}/image-candidates/upload`, { token: ws.token, raw: form });
    expect(res.status).toBe(200);
    expect(res.body.data.source).toBe('upload');
    const uploaded = await served(res.body.data.url);
    const meta = await sharp(uploaded).metadata();
    expect([meta.exif, meta.xmp]).toEqual([undefined, undefined]);
    expect(uploaded.includes(Buffer.from('LeakyCam'))).toBe(false);

    await ok(server, 'POST', `/tasks/${task.id}/image-candidates/select`, ws.token, { candidate_id: res.body.data.candidate_id });
    const textA = (detail.text_candidates as any[]).find((t) => t.strategy === 'A');
    await ok(server, 'POST', `/tasks/${task.id}/text-candidates/select`, ws.token, { candidate_id: textA.candidate_id });
    const created = await ok(server, 'POST', `/tasks/${task.id}/package`, ws.token);
    const pkg = await settledPackage(server, ws.token, created.delivery_package_id);
    expect(pkg.status).toBe('ready');
    const { token } = await ok(server, 'POST', `/delivery-packages/${pkg.id}/download-token`, ws.token);
    const entries = await readZip(await served(`${pkg.download_url}?token=${token}`));
    const cover = entries.find((e) => e.name.startsWith('note_01_A/01_'))!;
    expect((await sharp(cover.data).metadata()).xmp).toBeUndefined();
  }, 120_000);
});

/** The offline provider's cards and a fission's pictures are model output too: the same label. */
describe('AI content labels in fission downloads', () => {
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    server = await startTestServer({ env: { PUBLIC_URL: 'https://content.example.com' } });
    ws = await workspaceWithProduct(server);
  });
  afterAll(async () => server?.close());

  it('labels every picture of a fission download, with PUBLIC_URL as the propagator', async () => {
    const task = await createTask(server, ws, { text_count: 3, image_count: 2 });
    expect((await settledDetail(server, ws.token, task.id)).status).toBe('pending_selection');
    const { fission_id: id } = await ok(server, 'POST', '/fission', ws.token, { source_task_id: task.id, fanout_count: 1 });
    expect((await settledFission(server, ws.token, id)).status).toBe('completed');
    const res = await fetch(`${server.url}${API}/fission/${id}/download`, { headers: { authorization: `Bearer ${ws.token}` } });
    expect(res.status).toBe(200);
    const pictures = (await readZip(Buffer.from(await res.arrayBuffer()))).filter((e) => e.name.endsWith('.jpg'));
    expect(pictures.length).toBeGreaterThan(0);
    for (const entry of pictures) {
      const meta = await sharp(entry.data).metadata();
      expect(meta.exif, entry.name).toBeUndefined();
      expect(readAigc(meta.xmp), entry.name).toMatchObject({
        Label: '1',
        ContentProducer: 'local',
        ProduceID: expect.stringMatching(new RegExp(`^fission:${id}:image:\\d+:\\d+$`)),
        ContentPropagator: 'https://content.example.com',
      });
    }
  }, 120_000);
});

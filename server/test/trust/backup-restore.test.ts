import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { form } from '../config/setup.js';
import { imageBytes, seedImage, seedTask, seedText, settledPackage } from '../delivery/fixtures.js';
import { ADMIN_NEW_PASSWORD, describeOncePerCi, startTestServer, type TestServer } from '../helpers/server.js';
import { runCli } from '../platform/process.js';
import { waitUntil } from '../webhooks/receiver.js';
import { startFakeHost, type FakeHost } from './fake-host.js';

/**
 * Issue 28, findings 6 and 10: a backup is what a restore needs. A service with a provider
 * key, a product image, a ready package and a webhook is backed up with the CLI while it runs,
 * restored with the CLI into a fresh DATA_DIR, and the restored service is asked, through its
 * HTTP API, to use each of them.
 */
const KEY = 'sk-restored-key-0042';
const env = { DATABASE_URL: '', ALLOW_PRIVATE_PROVIDER_URLS: '1' };
const cliEnv = (dataDir: string, extra: Record<string, string> = {}) => ({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env, ...extra });
const mode = (p: string) => statSync(p).mode & 0o777;

let provider: FakeHost;
let receiver: FakeHost;
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  [provider, receiver] = await Promise.all([startFakeHost(), startFakeHost()]);
  receiver.route = (_req, res) => {
    res.writeHead(200);
    res.end('ok');
  };
});
afterAll(async () => {
  await Promise.all([provider?.close(), receiver?.close()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describeOncePerCi('backup and restore carry everything the service needs', () => {
  it('keys decrypt, images and packages download and webhooks deliver after a restore into a fresh DATA_DIR; files are 0600', async () => {
    const source = tempDir('cps-src-');
    const out = path.join(tempDir('cps-out-'), 'backup');
    const photo = await sharp({ create: { width: 120, height: 160, channels: 3, background: '#c0a080' } }).png().toBuffer();

    const a: TestServer = await startTestServer({ dataDir: source, env });
    let ids: { key: number; product: number; image: number; pkg: number; hook: number };
    try {
      const admin = await a.adminToken();
      const call = async (method: string, p: string, body?: unknown) => {
        const res = await a.request(method, `/api/v1${p}`, { token: admin, ...(body !== undefined ? { body } : {}) });
        expect(res.status, `${method} ${p}: ${res.text}`).toBe(200);
        return res.body.data;
      };
      const me = await call('GET', '/auth/me');
      const key = await call('POST', '/api-keys', { provider: 'openai-compatible', api_key: KEY, base_url: provider.url, text_model: 'm' });
      const product = await call('POST', '/products', { name: '备份产品', category: '护肤', source: 'custom' });
      const upload = await a.request('POST', `/api/v1/products/${product.id}/images`, { token: admin, raw: form({ scene: '主图' }, { field: 'image', name: 'p.png', type: 'image/png', data: photo }) });
      expect(upload.status, upload.text).toBe(200);
      const task = { id: await seedTask(a, { workspaceId: me.current_workspace_id, productId: product.id, operatorId: me.id, status: 'approved' }), workspaceId: me.current_workspace_id };
      await seedText(a, task, { strategy: 'A', selected: true });
      await seedImage(a, task, { strategy: 'A', seq: 1, selected: true, data: await imageBytes({ color: '#336699', width: 300, height: 400 }) });
      const pkg = await settledPackage(a, admin, (await call('POST', `/tasks/${task.id}/package`)).delivery_package_id);
      expect(pkg.status).toBe('ready');
      const hook = await call('POST', '/webhooks', { name: '备份群', url: `${receiver.url}/hook`, kind: 'generic', events: ['task.approved'], secret: 'hook-signing-secret' });
      ids = { key: key.id, product: product.id, image: upload.body.data.id, pkg: pkg.id, hook: hook.id };

      const made = await runCli(['backup', '--out', out], cliEnv(source));
      expect(made.stderr).toBe('');
      expect(made.code).toBe(0);
    } finally {
      await a.close();
    }

    // Everything in the backup is private to the service's user.
    expect(mode(out)).toBe(0o700);
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const files = walk(out);
    expect(files.map((f) => path.relative(out, f))).toEqual(expect.arrayContaining(['app.sqlite', 'manifest.json', 'secrets/secret_key', 'secrets/jwt_secret']));
    expect(files.some((f) => f.includes(`${path.sep}files${path.sep}`))).toBe(true);
    for (const f of files) expect({ f, mode: mode(f) }).toEqual({ f, mode: 0o600 });
    // And the live database itself (finding 10).
    expect(mode(path.join(source, 'app.sqlite'))).toBe(0o600);

    // The wrong SECRET_KEY is refused before anything is written.
    const wrongDir = tempDir('cps-wrong-');
    const wrong = await runCli(['restore', '--from', out], cliEnv(wrongDir, { SECRET_KEY: 'not-the-key-of-this-backup' }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/SECRET_KEY is not the one the backup was made with/);
    expect(readdirSync(wrongDir)).not.toContain('app.sqlite');

    const target = tempDir('cps-dst-');
    const restoredRun = await runCli(['restore', '--from', out], cliEnv(target));
    expect(restoredRun.stderr).toBe('');
    expect(restoredRun.code).toBe(0);
    // A second restore over it is refused: a restore never overwrites data.
    expect((await runCli(['restore', '--from', out], cliEnv(target))).code).toBe(1);

    const b = await startTestServer({ dataDir: target, env });
    try {
      const login = await b.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_NEW_PASSWORD } });
      expect(login.status, login.text).toBe(200);
      const token = login.body.data.token as string;

      provider.seen.length = 0;
      const tested = await b.request('POST', `/api/v1/api-keys/${ids.key}/test`, { token, body: {} });
      expect(tested.status, tested.text).toBe(200);
      expect(tested.body.data.ok).toBe(true);
      expect(provider.seen.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`]);

      const image = (await b.request('GET', `/api/v1/products/${ids.product}/images`, { token })).body.data.items.find((i: { id: number }) => i.id === ids.image);
      const served = await fetch(new URL(image.url, b.url));
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).length).toBeGreaterThan(0);

      const dl = await b.request('POST', `/api/v1/delivery-packages/${ids.pkg}/download-token`, { token });
      expect(dl.status, dl.text).toBe(200);
      const zip = await fetch(`${b.url}/api/v1/delivery-packages/${ids.pkg}/download-file?token=${dl.body.data.token}`);
      expect(zip.status).toBe(200);
      expect(Buffer.from(await zip.arrayBuffer()).subarray(0, 2).toString()).toBe('PK');

      const sent = await b.request('POST', `/api/v1/webhooks/${ids.hook}/test`, { token });
      expect(sent.status, sent.text).toBe(200);
      await waitUntil('the restored webhook to deliver', () => receiver.seen.some((r) => r.path === '/hook'));
    } finally {
      await b.close();
    }
  }, 120_000);
});

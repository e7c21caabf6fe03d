/**
 * AI 服务连接 in real Chromium, zh-CN, on a phone (390×844) and at a desk (1440×900): an admin
 * adds 通义千问 (defaults prefilled) pointing at a local server that behaves as DashScope
 * documents, tests it and sees each capability work, then a connection with a refused key and
 * its worded reason; at the desk routes images to it. Layout (no sideways scrolling), one h1 and
 * axe-core are checked. Screenshots: e2e/screenshots/connections-*.png.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePresets, type FakePresets } from '../../server/test/providers/fake-presets';
import { inspectPage } from './inspect';
import { available, launchChromium } from './browser';
import { ADMIN_PASSWORD, ROOT, startServer, type RunningServer } from './server';

const SHOTS = path.join(ROOT, 'web', 'e2e', 'screenshots');

describe.skipIf(!available)('AI 服务连接 page', () => {
  let server: RunningServer;
  let fake: FakePresets;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    fake = await startFakePresets();
    server = await startServer({ ALLOW_PRIVATE_PROVIDER_URLS: '1', PROVIDER_MAX_RETRIES: '0', PROVIDER_POLL_INTERVAL_MS: '20' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'zh-CN' });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.close();
  });

  const inspect = () => inspectPage(page);

  async function addQwen(key: string, name: string) {
    await page.getByRole('button', { name: '添加连接' }).click();
    const dialog = page.getByRole('dialog');
    // 通义千问 is preselected with its documented defaults.
    await expect.poll(() => dialog.getByLabel('文案模型').inputValue()).toBe('qwen-plus');
    expect(await dialog.getByLabel('画图模型').inputValue()).toBe('wan2.2-t2i-flash');
    await dialog.getByLabel('名称').fill(name);
    await dialog.getByLabel('密钥').fill(key);
    await dialog.getByLabel('接口地址').fill(fake.baseUrl('qwen'));
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  it('on a phone: add 通义千问, test it, see a refused key worded', async () => {
    await page.goto(`${server.url}/login`);
    await page.getByLabel('用户名').fill('admin');
    await page.getByLabel('密码', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByLabel('当前密码').fill(ADMIN_PASSWORD);
    await page.getByLabel('新密码', { exact: true }).fill('e2e-connections-admin-2');
    await page.getByLabel('确认新密码').fill('e2e-connections-admin-2');
    await page.getByRole('button', { name: /修改密码|保存/ }).click();
    await page.waitForURL('**/tasks');
    await page.goto(`${server.url}/api-keys`);
    await page.getByRole('heading', { level: 1, name: 'AI 服务连接' }).waitFor();

    await addQwen('sk-live-e2e-0123456789', '通义（主账号）');
    const good = page.getByTestId('connection').filter({ hasText: '通义（主账号）' });
    await good.getByRole('button', { name: '测试（含出图）' }).click();
    await expect.poll(() => good.getByTestId('last-test').getByText('可用').count(), { timeout: 20_000 }).toBe(3);

    await addQwen('sk-bad-e2e-0123456789', '旧密钥');
    const bad = page.getByTestId('connection').filter({ hasText: '旧密钥' });
    await bad.getByRole('button', { name: '测试连接' }).click();
    await bad.getByText('AI 服务拒绝了密钥，请在“AI 服务连接”中检查或更换密钥').first().waitFor();
    // Never the key, never an English provider message.
    const text = await page.locator('main').innerText();
    expect(text).not.toContain('sk-live-e2e');
    expect(text).not.toMatch(/Incorrect API key|failed after/);
    await page.screenshot({ path: path.join(SHOTS, 'connections-phone.png'), fullPage: true });
    expect(await inspect()).toEqual([]);
  });

  it('at a desk: route images to a connection', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.reload();
    await page.getByTestId('connection').first().waitFor();
    expect(await inspect()).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'connections-desk.png'), fullPage: true });
    await page.getByLabel('画图').click();
    await page.locator('.ant-select-item-option', { hasText: '通义（主账号） · wan2.2-t2i-flash' }).click();
    await expect.poll(async () => (await fetch(`${server.url}/api/v1/workspaces/current/generation`, { headers: { authorization: `Bearer ${await page.evaluate(() => localStorage.getItem('cps.token'))}` } }).then((r) => r.json())).data.image_key_id).not.toBeNull();
    expect(pageErrors).toEqual([]);
  });
});

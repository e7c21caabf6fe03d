/**
 * 通知 Webhook in real Chromium, zh-CN, on a phone (390×844) and at a desk (1440×900): an admin
 * adds a Feishu bot pointing at a local receiver, sends a test, and sees it delivered; the
 * receiver gets a Feishu interactive card in Chinese. Layout (no sideways scrolling), one h1 and
 * axe-core are checked on the page with content. Screenshots: e2e/screenshots/webhooks-*.png.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectPage } from './inspect';
import { available, launchChromium } from './browser';
import { ADMIN_PASSWORD, ROOT, startServer, type RunningServer } from './server';

const SHOTS = path.join(ROOT, 'web', 'e2e', 'screenshots');

describe.skipIf(!available)('通知 Webhook page', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let receiver: Server;
  let receiverUrl = '';
  const received: Array<{ body: any }> = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += String(c)));
      req.on('end', () => {
        received.push({ body: JSON.parse(raw) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":0,"msg":"success","data":{}}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/open-apis/bot/v2/hook/e2e-feishu-hook-0001`;
    server = await startServer({ ALLOW_PRIVATE_PROVIDER_URLS: '1', PUBLIC_URL: 'https://console.example.com', WEBHOOK_POLL_MS: '200' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'zh-CN' });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const inspect = () => inspectPage(page);

  it('on a phone: add a Feishu bot, send a test, see it delivered', async () => {
    await page.goto(`${server.url}/login`);
    await page.getByLabel('用户名').fill('admin');
    await page.getByLabel('密码', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByLabel('当前密码').fill(ADMIN_PASSWORD);
    await page.getByLabel('新密码', { exact: true }).fill('e2e-webhook-admin-2');
    await page.getByLabel('确认新密码').fill('e2e-webhook-admin-2');
    await page.getByRole('button', { name: /修改密码|保存/ }).click();
    await page.waitForURL('**/tasks');

    // Through the phone menu, as a team lead would find it.
    await page.getByTestId('menu-button').click();
    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '通知 Webhook' }).click();
    await page.waitForURL('**/admin/webhooks');
    await page.getByRole('heading', { level: 1, name: '通知 Webhook' }).waitFor();
    expect(await page.title()).toBe('通知 Webhook · 内容生产平台');

    await page.getByRole('button', { name: '添加 Webhook' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('名称').fill('小红书运营群');
    await dialog.getByLabel('Webhook 地址').fill(receiverUrl);
    await dialog.getByLabel('签名密钥').fill('feishu-e2e-secret');
    await dialog.getByRole('checkbox', { name: '发布包就绪' }).check();
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await dialog.waitFor({ state: 'hidden' });

    const card = page.locator('[data-testid^=webhook-]').first();
    await card.getByText('小红书运营群').waitFor();
    await card.getByText('飞书群机器人').waitFor();
    await card.getByText('已设签名').waitFor();
    await card.getByText('发布包就绪').waitFor();
    // The URL is shown masked: the hook id is the bot's credential.
    expect(await card.innerText()).not.toContain('e2e-feishu-hook-0001');

    await card.getByRole('button', { name: '发送测试' }).click();
    await card.getByText('已送达').waitFor({ timeout: 20_000 });
    await card.getByText('测试消息').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'webhooks-phone.png'), fullPage: true });
    expect(await inspect()).toEqual([]);

    expect(received).toHaveLength(1);
    const message = received[0]!.body;
    expect(message.msg_type).toBe('interactive');
    expect(message.card.header.title.content).toBe('测试消息');
    expect(message.sign).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it('at a desk: the same page, the add form open', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.reload();
    await page.locator('[data-testid^=webhook-]').first().getByText('已送达').waitFor();
    expect(await inspect()).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'webhooks-desk.png'), fullPage: true });
    await page.getByRole('button', { name: '添加 Webhook' }).click();
    await page.getByRole('dialog').getByLabel('推送到').click();
    await page.locator('.ant-select-item-option', { hasText: '企业微信群机器人' }).click();
    // A WeCom group robot has no secret: the field goes away.
    await expect.poll(() => page.getByRole('dialog').getByLabel('签名密钥').count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'webhooks-form-desk.png') });
    expect(pageErrors).toEqual([]);
  });
});

/**
 * 集成 in real Chromium, zh-CN, at a desk (1440×900): create a personal access token (shown once,
 * copyable), see it listed with its scopes, read the Cursor configuration with the server URL,
 * use the token, revoke it with one click and see it refused. Layout and axe-core are checked.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectPage } from './inspect';
import { available, launchChromium } from './browser';
import { ADMIN_PASSWORD, ROOT, startServer, type RunningServer } from './server';

const SHOTS = path.join(ROOT, 'web', 'e2e', 'screenshots');

describe.skipIf(!available)('集成 page', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('creates a token shown once, lists it, shows the configuration, and revokes it', async () => {
    await page.goto(`${server.url}/login`);
    await page.getByLabel('用户名').fill('admin');
    await page.getByLabel('密码', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByLabel('当前密码').fill(ADMIN_PASSWORD);
    await page.getByLabel('新密码', { exact: true }).fill('e2e-integrations-admin-2');
    await page.getByLabel('确认新密码').fill('e2e-integrations-admin-2');
    await page.getByRole('button', { name: /修改密码|保存/ }).click();
    await page.waitForURL('**/tasks');

    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '集成' }).click();
    await page.waitForURL('**/integrations');
    await page.getByRole('heading', { level: 1, name: '集成' }).waitFor();

    await page.getByRole('button', { name: '创建令牌' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('名称').fill('Claude 写稿助手');
    // read and produce are chosen by default; review stays off.
    expect(await dialog.getByRole('checkbox', { name: /^审核/ }).isChecked()).toBe(false);
    await dialog.getByRole('button', { name: /创建令牌|创\s*建/ }).click();
    const token = (await page.getByTestId('new-token').innerText()).trim();
    expect(token).toMatch(/^cps_pat_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('dialog').getByRole('button', { name: '复制令牌' }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'integrations-created-desk.png') });
    await page.getByRole('dialog').getByRole('button', { name: /确\s*定/ }).click();

    const card = page.locator('[data-testid^=token-]').first();
    await card.getByText('Claude 写稿助手').waitFor();
    await card.getByText('生产').waitFor();
    await card.getByText('从未使用').waitFor();
    // The configuration carries the server URL and, right after creation, the token.
    await page.getByRole('tab', { name: 'Cursor' }).click();
    const cursor = await page.getByTestId('config-cursor').innerText();
    expect(cursor).toContain(`${server.url}/mcp`);
    expect(cursor).toContain(`Bearer ${token}`);
    expect(await inspectPage(page)).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'integrations-desk.png'), fullPage: true });

    const use = () => fetch(`${server.url}/api/v1/products`, { headers: { authorization: `Bearer ${token}` } });
    expect((await use()).status).toBe(200);
    await card.getByRole('button', { name: '撤销' }).click();
    await page.getByRole('button', { name: /确\s*定/ }).click();
    await expect.poll(() => page.locator('[data-testid^=token-]').count()).toBe(0);
    expect((await use()).status).toBe(401);
    expect(pageErrors).toEqual([]);
  });
});

import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The API reference in a real browser: rendered under our CSP, and usable with a bearer token. */
describe('/api/docs in Chromium', () => {
  let server: TestServer | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      if (process.env.CI === 'true') throw new Error(`Chromium is required in CI but ${CHROMIUM} does not exist`);
      console.warn(`skipping the /api/docs browser test: no Chromium at ${CHROMIUM}`);
      return;
    }
    server = await startTestServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders every tag, then calls GET /auth/me with an authorized bearer token', { timeout: 60_000 }, async (ctx) => {
    if (!browser || !server) return ctx.skip();
    const token = await server.adminToken();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(`${server.url}/api/docs`);
    await page.locator('.opblock-tag').first().waitFor({ timeout: 30_000 });
    const tags = await page.locator('.opblock-tag').allTextContents();
    for (const tag of ['auth', 'workspaces', 'users', 'connections']) expect(tags.some((t) => t.trim().startsWith(tag)), tag).toBe(true);

    await page.getByRole('button', { name: /Authorize/ }).first().click();
    await page.getByLabel('auth-bearer-value').fill(token);
    // One form per security scheme (bearer, and the download token): apply the bearer one.
    await page.locator('.auth-container').filter({ has: page.getByLabel('auth-bearer-value') }).getByRole('button', { name: 'Apply credentials' }).click();
    await page.locator('.modal-ux .btn-done').first().click();

    const me = page.locator('.opblock-get').filter({ has: page.locator('[data-path="/api/v1/auth/me"]') });
    await me.locator('.opblock-summary').click();
    await me.getByRole('button', { name: 'Try it out' }).click();
    const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/me'));
    await me.getByRole('button', { name: 'Execute' }).click();
    expect((await response).status()).toBe(200);
    await expect.poll(() => me.locator('.response-col_description .microlight').first().textContent()).toContain('"username": "admin"');
    expect(problems, problems.join("\n")).toEqual([]);
  });
});

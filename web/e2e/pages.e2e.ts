/**
 * Issue 15 item 7 in a real Chromium, zh-CN, at 1440×900 and 390×844, against the real server
 * (offline `local` provider): a new admin is pointed to the Demo workspace and the first task
 * shows its live progress; benchmarks show their screenshot, are edited and deleted and accept a
 * pasted share text; banned words are searched, filtered by level, pasted many and deleted in
 * bulk; the task list searches by keyword, shows covers and hides archived tasks; products and
 * benchmarks export; and (issue 14 item 7) the demo provider's output is marked 演示内容 on the task page, in
 * the phone preview and in a fission. Screenshots go to e2e/screenshots/pages-item7/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Download, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, available, launchChromium, type Viewport, VIEWPORTS } from './browser';
import { ADMIN_PASSWORD, ROOT, startServer, type RunningServer } from './server';

const SHOTS = path.join(ROOT, 'web', 'e2e', 'screenshots', 'pages-item7');

const PASSWORD = 'e2e-item7-admin-pass';
const SHARE = '64 【通勤防晒不假白 - 阿敏 | 小红书 - 你的生活指南】 😆 Xp8q 😆 http://xhslink.com/a/Zz9，复制本条信息，打开【小红书】App查看精彩内容！';

describe.skipIf(!available)('item 7 pages in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const pages = {} as Record<Viewport, Page>;
  let page: Page;
  const pageErrors: string[] = [];
  let token = '';
  let productId = 0;
  let firstTaskId = 0;

  async function shot(name: string) {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  async function noSideScroll() {
    const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(widths.doc, `document ${widths.doc} px wide in ${widths.inner} px`).toBeLessThanOrEqual(widths.inner);
  }

  async function download(click: () => Promise<void>): Promise<{ name: string; text: string }> {
    const [file] = await Promise.all([page.waitForEvent('download'), click()]);
    const saved = await (file as Download).path();
    return { name: (file as Download).suggestedFilename(), text: readFileSync(saved!, 'utf8') };
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer();
    browser = await launchChromium();
    for (const viewport of ['desk', 'phone'] as const) {
      const phone = viewport === 'phone';
      const context = await browser.newContext({ viewport: VIEWPORTS[viewport], locale: 'zh-CN', isMobile: phone, hasTouch: phone, deviceScaleFactor: phone ? 2 : 1, acceptDownloads: true });
      context.setDefaultTimeout(15_000);
      pages[viewport] = await context.newPage();
      pages[viewport].on('pageerror', (e) => pageErrors.push(e.message));
    }
    page = pages.desk;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('first run: the new admin is shown the Demo workspace and goes there in one click', async () => {
    await page.goto(`${server.url}/login`);
    await page.getByLabel('用户名').fill('admin');
    await page.getByLabel('密码', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: '登录' }).click();
    await page.waitForURL('**/change-password');
    await page.getByLabel('当前密码').fill(ADMIN_PASSWORD);
    await page.getByLabel('新密码', { exact: true }).fill(PASSWORD);
    await page.getByLabel('确认新密码').fill(PASSWORD);
    await page.getByRole('button', { name: '修改密码' }).click();
    await page.waitForURL('**/tasks');
    const hint = page.getByTestId('demo-hint');
    await expect(hint.textContent()).resolves.toContain('示例工作区「Demo」已经准备好');
    await shot('01-first-run-hint-desk');
    await hint.getByRole('button', { name: '切换到「Demo」' }).click();
    await hint.waitFor({ state: 'detached' });
    token = (await page.evaluate(() => localStorage.getItem('cps.token')))!;
    const me = await api<{ workspace: { name: string } }>(server, 'GET', '/auth/me', token);
    expect(me.workspace.name).toBe('Demo');
    productId = (await api<{ items: { id: number }[] }>(server, 'GET', '/products', token)).items[0]!.id;
    // The phone shares the session from here on.
    await pages.phone.goto(`${server.url}/login`);
    await pages.phone.evaluate((v) => {
      localStorage.setItem('cps.token', v);
      localStorage.setItem('cps.lang', 'zh-CN');
    }, token);
  });

  it('the first task shows its live progress from the first event: form, then the queued task, then progress, then 已完成', async () => {
    await page.goto(`${server.url}/tasks/new?product_id=${productId}`);
    await page.getByLabel('主题').fill('早八通勤的防晒');
    // As a person would: the form is filled in once the page has settled (its code loaded).
    await page.waitForLoadState('networkidle');
    // What the page shows, each time it changes, from the click on: the order is what a user sees.
    await page.evaluate(() => {
      const seen: string[] = [];
      const state = () => {
        if (document.querySelector('[data-testid=live-finished]')) return 'finished';
        if (document.querySelector('[data-testid^=stage-]')) return 'progress';
        if (document.querySelector('[data-testid=live-queued]')) return 'queued';
        if (document.querySelector('[data-testid=live-generating]')) return 'generating';
        if (document.querySelector('.ant-spin-spinning')) return 'spinner';
        if ([...document.querySelectorAll('button')].some((b) => b.textContent?.includes('创建并开始生成'))) return 'form';
        return 'blank';
      };
      const record = () => {
        const now = state();
        if (seen.at(-1) !== now) seen.push(now);
      };
      record();
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      (window as unknown as { seen: string[] }).seen = seen;
    });
    const started = Date.now();
    await page.getByRole('button', { name: '创建并开始生成' }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    firstTaskId = Number(new URL(page.url()).pathname.split('/').at(-1));
    await page.getByTestId('live-panel').waitFor();
    const panelAfter = Date.now() - started;
    await page.getByTestId('live-finished').getByText('已完成').waitFor({ timeout: 90_000 });
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen.filter((s) => s !== 'blank'));
    console.log(`[e2e] first task: live panel ${panelAfter} ms after the click; seen ${seen.join(' → ')}`);
    // The form, then at once the task's own page saying it is queued (no page-wide spinner in
    // between), then the stages as they report, and 已完成 last.
    expect(seen[0]).toBe('form');
    expect(seen[1]).toBe('queued');
    expect(seen).not.toContain('spinner');
    expect(seen.indexOf('progress')).toBeGreaterThan(1);
    expect(seen.at(-1)).toBe('finished');
    await shot('02-first-task-finished-desk');
  });

  it('marks the offline demo provider’s output as 演示内容 on the task, in the preview and in a fission (desk and phone)', async () => {
    const fission = await api<{ fission_id: number }>(server, 'POST', '/fission', token, { source_task_id: firstTaskId, reference_level: 'mid', fanout_count: 1 });
    for (const viewport of ['desk', 'phone'] as const) {
      page = pages[viewport];
      await page.goto(`${server.url}/tasks/${firstTaskId}`);
      const notice = page.getByTestId('demo-notice');
      await notice.getByText('演示内容：本任务的文案和图片由内置的离线演示服务生成，只用于体验流程，请勿发布').waitFor();
      const setA = page.getByTestId('set-A');
      await setA.getByTestId('chosen-text').getByTestId('demo-tag').waitFor();
      expect(await setA.getByTestId('chosen-text').getByTestId('demo-tag').textContent()).toBe('演示内容');
      await expect.poll(() => setA.getByTestId('image-candidate').count()).toBeGreaterThan(0);
      expect(await setA.getByTestId('demo-mark').count()).toBe(await setA.locator('[data-testid=image-candidate][data-status=done]').count());
      await noSideScroll();
      await shot(`02b-demo-task-${viewport}`);
      await setA.getByTestId('chosen-text').getByRole('button', { name: '手机预览' }).click();
      const preview = page.getByRole('dialog').getByTestId('phone-preview');
      await preview.getByTestId('demo-mark').waitFor();
      await preview.getByTestId('preview-demo').getByText('演示内容', { exact: false }).waitFor();
      // The dialog as it stands on the screen (a full-page shot of a phone is too long to read),
      // once its opening zoom is over.
      await page
        .waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity), undefined, { timeout: 3_000 })
        .catch(() => undefined);
      await page.screenshot({ path: path.join(SHOTS, `02c-demo-preview-${viewport}.png`) });
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
    }
    page = pages.desk;
    await page.goto(`${server.url}/fission/${fission.fission_id}`);
    await page.getByTestId('demo-notice').getByText(/^演示内容：这次裂变/).waitFor();
    await page.getByTestId('fission-note').first().getByTestId('demo-tag').waitFor({ timeout: 60_000 });
    await shot('02d-demo-fission-desk');
  });

  it('tasks: keyword search, covers, archived hidden by default (desk and phone)', async () => {
    const second = await api<{ id: number }>(server, 'POST', '/tasks', token, { product_id: productId, theme: '周末露营穿搭', text_count: 1, image_count: 1, track: 'ai' });
    for (;;) {
      const d = await api<{ status: string }>(server, 'GET', `/tasks/${second.id}`, token);
      if (d.status !== 'pending' && d.status !== 'generating') break;
      await new Promise((r) => setTimeout(r, 300));
    }
    await api(server, 'POST', `/tasks/${second.id}/archive`, token);
    for (const viewport of ['desk', 'phone'] as const) {
      page = pages[viewport];
      await page.goto(`${server.url}/tasks`);
      await page.getByRole('link', { name: '早八通勤的防晒' }).waitFor();
      expect(await page.getByRole('link', { name: '周末露营穿搭' }).count()).toBe(0);
      await page.getByTestId('task-cover').first().waitFor();
      expect(await page.getByTestId('task-cover').first().evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      await page.getByText('显示已归档').click();
      await page.getByRole('link', { name: '周末露营穿搭' }).waitFor();
      await page.getByLabel('搜索主题或产品').fill('露营');
      await page.getByLabel('搜索主题或产品').press('Enter');
      await page.waitForFunction(() => !document.body.innerText.includes('早八通勤的防晒'));
      await page.getByRole('link', { name: '周末露营穿搭' }).waitFor();
      await noSideScroll();
      await shot(`03-tasks-search-${viewport}`);
    }
    page = pages.desk;
  });

  it('benchmarks: share text, screenshot shown, edit, delete, CSV export', async () => {
    await page.goto(`${server.url}/products/${productId}`);
    await page.getByRole('tab', { name: '对标笔记' }).click();
    await page.getByLabel('笔记链接或分享文本').fill(SHARE);
    const png = await sharp({ create: { width: 300, height: 400, channels: 3, background: '#f3c6a5' } }).png().toBuffer();
    await page.locator('input[type=file]').setInputFiles({ name: 'shot.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('button', { name: '添加', exact: true }).click();
    const item = page.getByTestId('benchmark').first();
    await item.getByText('http://xhslink.com/a/Zz9').waitFor();
    await item.getByText('通勤防晒不假白').waitFor();
    const screenshot = item.locator('img[alt^="对标笔记"]');
    await screenshot.waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('img[alt^="对标笔记"]')].every((i) => i.complete));
    expect(await screenshot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await shot('04-benchmark-added-desk');

    await item.getByRole('button', { name: '编辑' }).click();
    const dialog = page.getByRole('dialog', { name: /编辑对标笔记/ });
    await dialog.getByLabel('亮点摘录').fill('开头三秒戳中通勤痛点');
    await dialog.getByRole('button', { name: '保存' }).click();
    await item.getByText('开头三秒戳中通勤痛点').waitFor();

    const csv = await download(() => page.getByRole('button', { name: '导出 CSV' }).click());
    expect(csv.name).toMatch(/\.csv$/);
    expect(csv.text.charCodeAt(0)).toBe(0xfeff);
    expect(csv.text).toContain('开头三秒戳中通勤痛点');

    page = pages.phone;
    await page.goto(`${server.url}/products/${productId}`);
    await page.getByRole('tab', { name: '对标笔记' }).click();
    await page.locator('img[alt^="对标笔记"]').first().waitFor();
    await noSideScroll();
    await shot('05-benchmarks-phone');
    page = pages.desk;

    await item.getByRole('button', { name: '删除' }).click();
    await page.getByRole('tooltip').getByRole('button', { name: '确定' }).click();
    await page.waitForFunction(() => ![...document.querySelectorAll('[data-testid=benchmark]')].some((e) => e.textContent?.includes('开头三秒戳中通勤痛点')));
    expect((await api<{ total: number }>(server, 'GET', `/products/${productId}/benchmarks`, token)).total).toBe(0);
  });

  it('banned words: paste many, search, filter by level, delete selected', async () => {
    await page.goto(`${server.url}/banned-words`);
    await page.getByRole('button', { name: '批量添加' }).click();
    const dialog = page.getByRole('dialog', { name: '批量添加' });
    const before = (await api<{ total: number }>(server, 'GET', '/banned-words?page_size=1', token)).total;
    // Words of the team's own: the legal baseline every workspace starts with holds 秒杀 and the like.
    await dialog.getByLabel('词语（每行一个）').fill('神药\n包治百病、抢光光\n神药');
    await dialog.getByRole('button', { name: /添加 4 个词/ }).click();
    await dialog.getByText(/新增 \d+ 个，跳过 \d+ 个已有的词/).waitFor();
    const after = (await api<{ total: number }>(server, 'GET', '/banned-words?page_size=1', token)).total;
    expect(await dialog.getByText(/新增 \d+ 个/).textContent()).toContain(`新增 ${after - before} 个`);
    await shot('06-banned-paste-desk');
    await dialog.locator('.ant-modal-footer').getByRole('button', { name: '关闭' }).click();

    await page.getByLabel('搜索违禁词').fill('神');
    await page.getByLabel('搜索违禁词').press('Enter');
    await page.getByRole('cell', { name: '神药', exact: true }).waitFor();
    await page.waitForFunction(() => !document.body.innerText.includes('抢光光'));
    await page.getByLabel('搜索违禁词').fill('');
    await page.getByLabel('搜索违禁词').press('Enter');
    // Failed once at the 15 s default in a fresh-clone CI run under load; nothing wrong was found.
    await page.getByRole('cell', { name: '抢光光', exact: true }).waitFor({ timeout: 40_000 });

    await page.getByLabel('选择“神药”').check();
    await page.getByLabel('选择“抢光光”').check();
    await page.getByRole('button', { name: '删除所选（2）' }).click();
    await page.getByRole('tooltip').getByRole('button', { name: '确定' }).click();
    await page.getByRole('cell', { name: '抢光光', exact: true }).waitFor({ state: 'detached' });
    const left = await api<{ items: { word: string }[] }>(server, 'GET', '/banned-words?page_size=100', token);
    expect(left.items.map((w) => w.word)).toEqual(expect.arrayContaining(['包治百病']));
    expect(left.items.map((w) => w.word)).not.toContain('神药');

    await page.getByLabel('按级别筛选').click();
    await page.getByTitle('提醒').click();
    await page.getByRole('cell', { name: '包治百病', exact: true }).waitFor();

    page = pages.phone;
    await page.goto(`${server.url}/banned-words`);
    // On a phone the words are cards, not a table (issue 30).
    await page.getByText('包治百病', { exact: true }).first().waitFor();
    expect(await page.locator('table').count()).toBe(0);
    await noSideScroll();
    await shot('07-banned-phone');
    page = pages.desk;
  });

  it('products: JSON and benchmark CSV exports from the list', async () => {
    await page.goto(`${server.url}/products`);
    const json = await download(() => page.getByRole('button', { name: '导出产品 JSON' }).click());
    expect(json.name).toMatch(/\.json$/);
    expect(JSON.stringify(JSON.parse(json.text))).toContain('"name"');
    const csv = await download(() => page.getByRole('button', { name: '导出对标笔记 CSV' }).click());
    expect(csv.text.charCodeAt(0)).toBe(0xfeff);
    await shot('08-products-desk');
    page = pages.phone;
    await page.goto(`${server.url}/products`);
    await page.getByRole('button', { name: '导出产品 JSON' }).waitFor();
    await noSideScroll();
    await shot('09-products-phone');
    page = pages.desk;
    expect(pageErrors).toEqual([]);
  });
});

/**
 * Batches (批量生产) in a real Chromium against the real server, as admin, in zh-CN: a batch made
 * from the form (2 products × 2 themes, scheduled over an account's days) watched until every
 * task is done, a second, larger batch cancelled from its page, and a CSV plan imported with one
 * bad row shown with its reason; the list and a batch page on a phone (390×844) as cards. Every
 * page is checked for horizontal scrolling on the phone, English sentences or raw values in the
 * Chinese interface, and axe-core violations. Screenshots go to e2e/screenshots/batches/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, available, demoAdmin, launchChromium, pageProblems, settle, signedInPages, until, type Viewport } from './browser';
import { ROOT, startServer, type RunningServer } from './server';

const SHOTS = path.join(ROOT, 'web', 'e2e', 'screenshots', 'batches');
const PASSWORD = 'e2e-batches-admin-1';
const ACCOUNT = '小林的周末厨房';

const RAW_VALUE = /(?<![A-Za-z_.-])(waiting|running|done|failed|cancelled|finished|plan\.[a-z_]+|batch\.[a-z_]+|null|undefined|NaN)(?![A-Za-z_.-])/;

type BatchView = { id: number; status: string; total: number; counts: Record<string, number>; items: { state: string; task_id: number; account_name: string | null; publish_at: string | null }[] };

describe.skipIf(!available)('batches: from the form to done, cancelled, imported from a plan, on a phone', () => {
  let server: RunningServer;
  let browser: Browser;
  let pages = {} as Record<Viewport, Page>;
  const pageErrors: string[] = [];
  let token = '';
  let products: { id: number; name: string }[] = [];
  let formBatchId = 0;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer();
    token = await demoAdmin(server, PASSWORD);
    products = (await api<{ items: { id: number; name: string }[] }>(server, 'GET', '/products', token)).items;
    expect(products.length).toBeGreaterThanOrEqual(2);
    await api(server, 'POST', '/accounts', token, { name: ACCOUNT, daily_cap: 3, min_gap_minutes: 60 });

    browser = await launchChromium();
    pages = await signedInPages(browser, server, token, pageErrors);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function shot(viewport: Viewport, name: string) {
    await pages[viewport].screenshot({ path: path.join(SHOTS, `${name}-${viewport}.png`), fullPage: true });
  }

  const problems = (viewport: Viewport) => pageProblems(pages[viewport], viewport, RAW_VALUE);

  const batch = (id: number) => api<BatchView>(server, 'GET', `/batches/${id}`, token);

  it('the menu leads to 批量生产, whose list is empty at first', async () => {
    const page = pages.desk;
    await page.goto(`${server.url}/tasks`);
    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '批量生产' }).click();
    await page.waitForURL('**/batches');
    await page.getByRole('heading', { level: 1, name: '批量生产' }).waitFor();
    await page.getByText('还没有批次').first().waitFor();
    await settle(page);
    await shot('desk', '01-list-empty');
    expect(await problems('desk')).toEqual([]);
  });

  it('creates a batch from the form: 2 products × 2 themes over an account’s days, with the counts live', async () => {
    const page = pages.desk;
    await page.getByRole('button', { name: '新建批次' }).click();
    await page.waitForURL('**/batches/new');
    await page.getByLabel('批次名称').fill('第 48 周 · 换季护理');
    const productPicker = page.getByLabel('产品', { exact: true });
    for (const product of products.slice(0, 2)) {
      await productPicker.click();
      await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: product.name }).first().click();
    }
    await page.keyboard.press('Escape');
    const themes = page.getByLabel('主题', { exact: true });
    await themes.click();
    for (const theme of ['换季干皮急救', '熬夜后的早晨']) {
      await themes.pressSequentially(theme);
      await page.keyboard.press('Enter');
    }
    await page.getByRole('spinbutton', { name: '文案数' }).fill('1');
    await page.getByRole('spinbutton', { name: '每套图片数' }).fill('1');
    await expect.poll(() => page.getByTestId('matrix-tasks').innerText()).toBe('将创建 4 个任务');

    // An account with one day and one time: too few slots, said before sending.
    const accounts = page.getByLabel('发布账号');
    await accounts.click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: ACCOUNT }).first().click();
    await page.keyboard.press('Escape');
    await page.getByRole('spinbutton', { name: '天数' }).fill('1');
    await expect.poll(() => page.getByTestId('matrix-too-few-slots').innerText()).toContain('排期位（1）少于任务数（4）');
    await settle(page);
    await shot('desk', '02-form-too-few-slots');
    expect(await problems('desk')).toEqual([]);

    await page.getByRole('spinbutton', { name: '天数' }).fill('4');
    await expect.poll(() => page.getByTestId('matrix-slots').innerText()).toContain('排期位 4 个');
    expect(await page.getByTestId('matrix-too-few-slots').count()).toBe(0);
    await page.getByTestId('matrix-submit').click();
    await page.waitForURL(/\/batches\/\d+$/);
    formBatchId = Number(new URL(page.url()).pathname.split('/').pop());
    const created = await batch(formBatchId);
    expect(created.total).toBe(4);
    expect(created.items.every((i) => i.account_name === ACCOUNT && i.publish_at)).toBe(true);
    await page.getByTestId('batch-items').waitFor();
    await settle(page);
    await shot('desk', '03-batch-running');
  });

  it('the batch page follows the batch to the end: every task done, each linking to its task', async () => {
    const page = pages.desk;
    await until(async () => ((await batch(formBatchId)).status === 'finished' ? true : undefined), 'the form’s batch to finish', 110_000);
    // The page polls while the batch runs: it shows the end by itself.
    await expect.poll(() => page.getByTestId('batch-status').innerText()).toContain('已结束');
    await expect.poll(() => page.getByTestId('count-done').innerText()).toContain('4');
    const view = await batch(formBatchId);
    expect(view.counts.done).toBe(4);
    const taskLink = page.getByRole('link', { name: `任务 #${view.items[0]!.task_id}` });
    expect(await taskLink.getAttribute('href')).toBe(`/tasks/${view.items[0]!.task_id}`);
    await settle(page);
    await shot('desk', '04-batch-done');
    expect(await problems('desk')).toEqual([]);
  }, 150_000);

  it('cancels a larger batch from its page, after confirming', async () => {
    const page = pages.desk;
    // 100 tasks: the offline provider is fast, the batch still runs when its page opens.
    const big = await api<{ id: number }>(server, 'POST', '/batches', token, {
      name: '大批量（将取消）',
      matrix: { product_ids: products.slice(0, 2).map((p) => p.id), themes: ['通勤', '露营', '开学', '约会', '旅行'], tasks_each: 10, text_count: 1, image_count: 1 },
    });
    await page.goto(`${server.url}/batches/${big.id}`);
    await page.getByTestId('batch-cancel').click();
    await page.getByText('取消后，尚未开始的任务不再生成，已完成的保留。确定取消？').waitFor();
    await settle(page);
    await shot('desk', '05-cancel-confirm');
    await page.getByRole('button', { name: /确\s*定/ }).click();
    await expect.poll(() => page.getByTestId('batch-status').innerText()).toContain('已取消');
    expect(await page.getByTestId('batch-cancel').count()).toBe(0);
    const view = await batch(big.id);
    expect(view.status).toBe('cancelled');
    expect(view.counts.cancelled).toBeGreaterThan(0);
    await expect.poll(async () => Number((await page.getByTestId('count-cancelled').innerText()).replace(/\D/g, ''))).toBeGreaterThan(0);
    // The cancelled tasks are the last ones: the last page of the items says why they were not made.
    await page.locator('.ant-pagination .ant-pagination-item').last().click();
    await page.getByText('批次已取消，任务未生成').first().waitFor();
    await settle(page);
    await shot('desk', '06-cancelled');
    expect(await problems('desk')).toEqual([]);
  });

  it('imports a CSV plan: the good rows previewed, the bad one with its row and reason, then created', async () => {
    const page = pages.desk;
    await page.goto(`${server.url}/batches/new`);
    await page.getByLabel('批次名称').fill('导入的计划');
    await page.getByRole('tab', { name: '导入计划' }).click();
    const csv = ['产品,主题,文案数,图片数,裂变数,账号,发布时间', `${products[0]!.name},早八通勤妆,1,1,0,,`, `${products[1]!.name},周末出游,1,0,0,,`, '不存在的产品,冬日暖阳,1,1,0,,'].join('\n');
    await page.getByTestId('plan-import').locator('input[type=file]').setInputFiles({ name: '计划.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
    const errors = page.getByTestId('plan-errors');
    await errors.waitFor();
    expect(await errors.innerText()).toContain('第 4 行');
    expect(await errors.innerText()).toContain('找不到产品“不存在的产品”');
    await expect.poll(() => page.getByTestId('plan-items').innerText()).toContain(products[1]!.name);
    await settle(page);
    await shot('desk', '07-plan-preview');
    expect(await problems('desk')).toEqual([]);
    await page.getByTestId('plan-submit').click();
    await page.getByText('有 1 行有问题，这些行会被跳过，只创建其余 2 个任务。继续吗？').waitFor();
    await page.getByRole('button', { name: /确\s*定/ }).click();
    await page.waitForURL(/\/batches\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await batch(id)).total).toBe(2);
  });

  it('on a phone: the list and a batch are cards, nothing wider than the screen', async () => {
    const page = pages.phone;
    await page.goto(`${server.url}/batches`);
    await page.getByTestId('batch-list').getByTestId('row-card').first().waitFor();
    expect(await page.getByTestId('batch-list').getByTestId('row-card').count()).toBe(3);
    await settle(page);
    await shot('phone', '08-list');
    expect(await problems('phone')).toEqual([]);
    await page.goto(`${server.url}/batches/${formBatchId}`);
    await page.getByTestId('batch-items').getByTestId('row-card').first().waitFor();
    expect(await page.getByTestId('batch-items').getByTestId('row-card').count()).toBe(4);
    await settle(page);
    await shot('phone', '09-batch');
    expect(await problems('phone')).toEqual([]);
    await page.goto(`${server.url}/batches/new`);
    await page.getByTestId('matrix-form').waitFor();
    await settle(page);
    await shot('phone', '10-new');
    expect(await problems('phone')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

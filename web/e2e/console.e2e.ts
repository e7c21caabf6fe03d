/**
 * The console in a real Chromium against the real server (offline `local` provider): the whole
 * flow of issue 8, role limits, accessibility (axe-core) and the login page's download size.
 * Screenshots of the main pages go to e2e/screenshots/ on every run.
 */
import axe from 'axe-core';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { available, launchChromium } from './browser';
import { ADMIN_PASSWORD, ROOT, startServer, type RunningServer } from './server';
import { zipEntries } from './zip';

const HERE = path.join(ROOT, 'web', 'e2e');
const SHOTS = path.join(HERE, 'screenshots');
const LOGIN_BUDGET_GZIP = 300 * 1024;

const PASSWORDS = { admin: 'e2e-admin-password-2', first: 'first-password-1', second: 'second-password-2' };

describe.skipIf(!available)('web console in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const state = { productId: 0, taskId: 0, imageFile: '' };

  async function screenshot(name: string) {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  /** axe-core in the page: no serious or critical violations. */
  async function expectAccessible(name: string) {
    // antd fades closing dialogs out; axe would judge the contrast of a half-transparent one.
    // Spinners animate for ever and polling pages restart transitions, so the wait is bounded.
    await page
      .waitForFunction(
        () => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
        undefined,
        { timeout: 3_000 },
      )
      .catch(() => undefined);
    // evaluate() runs outside the page's CSP, which (rightly) refuses inline scripts.
    await page.evaluate(axe.source);
    const result = await page.evaluate(async () => {
      const r = await (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
    });
    const serious = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious, `${name}: ${JSON.stringify(serious, null, 1)}`).toEqual([]);
  }

  async function login(username: string, password: string, succeeds = true) {
    await page.goto(`${server.url}/login`);
    await page.getByLabel('用户名').fill(username);
    await page.getByLabel('密码', { exact: true }).fill(password);
    await page.getByRole('button', { name: '登录' }).click();
    if (succeeds) await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  }

  async function changePassword(current: string, next: string) {
    await page.waitForURL('**/change-password');
    await page.getByLabel('当前密码').fill(current);
    await page.getByLabel('新密码', { exact: true }).fill(next);
    await page.getByLabel('确认新密码').fill(next);
    await page.getByRole('button', { name: '修改密码' }).click();
    await page.waitForURL('**/tasks');
  }

  async function logout() {
    await page.getByRole('button', { name: '退出登录' }).click();
    await page.waitForURL(/\/login/);
  }

  async function chooseOption(combobox: ReturnType<Page['getByRole']>, option: string) {
    await combobox.click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: option }).first().click();
  }

  /** The task's status tag next to its title. */
  async function statusIs(label: string, timeout?: number) {
    await page.getByRole('heading', { level: 1 }).getByText(label, { exact: true }).waitFor({ timeout });
  }

  async function openTask() {
    await page.goto(`${server.url}/tasks/${state.taskId}`);
    await page.getByTestId('live-panel').waitFor();
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    state.imageFile = path.join(SHOTS, 'upload-product.png');
    await sharp({ create: { width: 600, height: 800, channels: 3, background: { r: 230, g: 120, b: 90 } } })
      .png()
      .toFile(state.imageFile);
    server = await startServer();
    browser = await launchChromium();
    context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) {
      await page.screenshot({ path: path.join(SHOTS, 'failed.png'), fullPage: true }).catch(() => undefined);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('loads the login page with at most 300 KB of gzipped JavaScript and no console code', async () => {
    const scripts: { url: string; gzip: number }[] = [];
    const listener = async (response: import('playwright-core').Response) => {
      if (response.request().resourceType() === 'script') {
        scripts.push({ url: response.url(), gzip: gzipSync(await response.body(), { level: 9 }).length });
      }
    };
    page.on('response', listener);
    await page.goto(`${server.url}/login`);
    await page.getByRole('button', { name: '登录' }).waitFor();
    await page.waitForLoadState('networkidle');
    page.off('response', listener);
    const total = scripts.reduce((sum, s) => sum + s.gzip, 0);
    writeFileSync(path.join(SHOTS, 'login-scripts.json'), JSON.stringify({ total, scripts }, null, 1));
    expect(total).toBeLessThanOrEqual(LOGIN_BUDGET_GZIP);
    expect(scripts.some((s) => /TaskPage|AppLayout|ProductPage/.test(s.url))).toBe(false);
    await screenshot('01-login');
    await expectAccessible('login');
  });

  it('shows the envelope message for a wrong password', async () => {
    await login('admin', 'wrong-password-here', false);
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/password|密码/i);
    expect(await page.getByRole('alert').innerText()).not.toContain('[object Object]');
  });

  it('forces the bootstrapped admin to change the password, then opens the console', async () => {
    await login('admin', ADMIN_PASSWORD);
    await page.getByText('首次登录需要先修改密码').waitFor();
    await screenshot('02-change-password');
    await expectAccessible('change-password');
    await changePassword(ADMIN_PASSWORD, PASSWORDS.admin);
    await page.getByRole('heading', { name: '任务列表' }).waitFor();
  });

  it('switches to the Demo workspace from the header and shows the role', async () => {
    await chooseOption(page.getByRole('combobox', { name: '当前工作空间' }), 'Demo');
    await expect.poll(() => page.getByRole('combobox', { name: '当前工作空间' }).locator('..').locator('..').innerText()).toContain('Demo');
    expect(await page.getByTestId('current-role').innerText()).toBe('管理员');
  });

  it('creates an operator and a supervisor on the users page', async () => {
    await page.getByRole('link', { name: '用户' }).click();
    for (const [username, role] of [
      ['op1', '运营'],
      ['sup1', '主管'],
    ] as const) {
      await page.getByRole('button', { name: '新建用户' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('用户名').fill(username);
      await dialog.getByLabel('邮箱').fill(`${username}@example.com`);
      await dialog.getByLabel('初始密码').fill(PASSWORDS.first);
      await chooseOption(dialog.getByRole('combobox', { name: '角色' }), role);
      await dialog.getByRole('button', { name: '保存' }).click();
      await page.getByRole('cell', { name: username, exact: true }).waitFor();
    }
    await screenshot('03-users');
    await expectAccessible('users');
  });

  it('invites the supervisor into another workspace; a direct add of someone unknown says to invite', async () => {
    await page.goto(`${server.url}/admin/workspaces`);
    const row = page.getByRole('row').filter({ hasText: 'default' });
    await row.getByRole('button', { name: '添加成员' }).click();
    let dialog = page.getByRole('dialog');
    await dialog.getByLabel('用户名').fill('stranger');
    await dialog.getByRole('button', { name: '保存' }).click();
    await dialog.getByText('没有可直接添加的该用户：请改用邀请').waitFor();
    await dialog.getByRole('button', { name: '取消' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await row.getByRole('button', { name: '邀请成员' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('用户名或邮箱').fill('sup1');
    await chooseOption(dialog.getByRole('combobox', { name: '角色' }), '运营');
    await dialog.getByRole('button', { name: '邀请成员' }).click();
    const invited = dialog.getByTestId('invitation-list').getByRole('row').filter({ hasText: 'sup1' });
    await invited.getByText('待回应').waitFor();
    await screenshot('03b-invitations');
    await expectAccessible('invitations');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('creates a product with selling points and a product image', async () => {
    await page.goto(`${server.url}/products/new`);
    await page.getByLabel('名称').fill('晨光保温杯');
    await page.getByLabel('品类').fill('家居');
    const points = page.getByRole('combobox', { name: '卖点' });
    await points.click();
    for (const p of ['12小时保温', '一键开盖']) {
      await points.pressSequentially(p);
      await points.press('Enter');
    }
    await page.getByRole('button', { name: '保存' }).click();
    await page.waitForURL(/\/products\/\d+$/);
    state.productId = Number(/\/products\/(\d+)$/.exec(page.url())![1]);
    await page.getByRole('tab', { name: '产品图片' }).click();
    await page.locator('input[type=file]').setInputFiles(state.imageFile);
    await page.getByTestId('product-image').first().waitFor();
    expect(await page.getByTestId('product-image').first().innerText()).toContain('主图');
    await screenshot('04-product-images');
    await page.getByRole('tab', { name: '资料' }).click();
    await expectAccessible('product');
  });

  it('adds a benchmark note by its highlights and shows the eight analysed dimensions', async () => {
    await page.getByRole('tab', { name: '对标笔记' }).click();
    await page.getByLabel('亮点摘录').fill('标题用数字开头，首图大字报，正文三段式，结尾引导收藏');
    await page.getByRole('button', { name: '添加', exact: true }).click();
    const note = page.getByTestId('benchmark').first();
    await note.getByRole('button', { name: '分析' }).click();
    const features = note.getByTestId('benchmark-features');
    await features.waitFor({ timeout: 30_000 });
    for (const label of ['标题公式', '开头钩子', '正文结构', '卖点呈现', '情绪/语气/表情', '目标人群', '话题标签', '视觉节奏']) {
      await features.getByText(label, { exact: true }).waitFor();
    }
    await screenshot('04b-benchmark');
  });

  it('adds a provider connection and shows only its provider and last four characters', async () => {
    await page.goto(`${server.url}/api-keys`);
    await page.getByRole('button', { name: '添加连接' }).click();
    const dialog = page.getByRole('dialog');
    await chooseOption(dialog.getByRole('combobox', { name: '服务商' }), 'DeepSeek');
    await dialog.getByLabel('密钥', { exact: true }).fill('sk-e2e-secret-key-9876');
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    const connection = page.getByTestId('connection').filter({ hasText: '••••9876' });
    await connection.waitFor();
    expect(await page.content()).not.toContain('sk-e2e-secret-key');
    await screenshot('05b-api-keys');
    await expectAccessible('api-keys');
    // Deleted again: this connection reaches no real provider.
    await connection.getByRole('button', { name: /删\s*除/ }).click();
    await page.getByRole('tooltip').getByRole('button', { name: /确\s*定/ }).click();
    await connection.waitFor({ state: 'detached' });
  });

  it('lists products and banned words, and imports a preset word list', async () => {
    await page.goto(`${server.url}/products`);
    await page.getByRole('link', { name: '晨光保温杯' }).waitFor();
    await screenshot('05-products');
    await expectAccessible('products');
    await page.goto(`${server.url}/banned-words`);
    // The legal baseline is there from the workspace's first minute, its words marked by their list.
    await page.locator('tbody').getByText(/^(广告法极限词|医疗功效用语|小红书站外引流)$/).first().waitFor();
    // The inducement list is not part of the baseline: imported here.
    await page.getByRole('button', { name: '导入预设词库' }).click();
    await page.getByRole('dialog').getByRole('listitem').filter({ hasText: '小红书诱导互动' }).getByRole('button', { name: '导入' }).click();
    await page.getByText(/导入 \d+ 个/).waitFor();
    // Dialogs close from the keyboard.
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.getByPlaceholder('搜索违禁词').fill('抽奖');
    await page.getByPlaceholder('搜索违禁词').press('Enter');
    await page.locator('tbody').getByText('小红书诱导互动').first().waitFor();
    await screenshot('06-banned-words');
    await expectAccessible('banned-words');
  });

  it('shows why a task is refused (422: a blocked word in the theme) next to the form', async () => {
    await page.goto(`${server.url}/tasks/new?product_id=${state.productId}`);
    await page.getByLabel('主题').fill('国家级好杯推荐');
    await page.getByRole('button', { name: '创建并开始生成' }).click();
    const alert = page.getByRole('alert').filter({ hasText: '任务未能创建' });
    await alert.waitFor();
    expect(await alert.innerText()).toContain('国家级');
    expect(page.url()).toContain('/tasks/new');
    await screenshot('06b-task-refused');
  });

  it('creates a task and watches it complete live over SSE', async () => {
    await page.goto(`${server.url}/tasks/new?product_id=${state.productId}`);
    await page.getByLabel('主题').fill('通勤路上的一杯热水');
    await page.getByLabel('每组图片数量（0–9）').fill('1');
    await page.getByRole('button', { name: '创建并开始生成' }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    state.taskId = Number(/\/tasks\/(\d+)$/.exec(page.url())![1]);
    await page.getByTestId('live-panel').waitFor();
    await statusIs('待选择', 60_000);
    // Each set shows the text it ships with, its images and its other texts, side by side.
    await expect.poll(() => page.getByTestId('chosen-text').count()).toBe(3);
    await expect.poll(() => page.getByTestId('image-candidate').count()).toBe(3);
    expect(await page.getByTestId('stage-image').innerText()).toContain('3/3');
    // Texts, scores and the thumbnails of every set are on the page.
    for (const set of ['A', 'B', 'C']) {
      await expect.poll(() => page.getByTestId(`set-${set}`).getByTestId('chosen-text').count()).toBe(1);
    }
    await expect.poll(() => page.locator('[data-testid=image-candidate] img').evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
    await screenshot('07-task-generated');
    await expectAccessible('task');
  });

  it('selects a text and an image, then submits for review', async () => {
    const setA = page.getByTestId('set-A');
    await setA.getByTestId('chosen-text').getByRole('button', { name: '选用', exact: true }).click();
    await setA.locator('[data-testid=chosen-text][data-selected=true]').waitFor();
    // Not check(): it reads the box right after the click, and the tick is the task's optimistic
    // update, which TanStack Query applies a task later (its notifications are batched).
    const imageBox = setA.getByRole('checkbox').first();
    await imageBox.click();
    await setA.locator('[data-testid=image-candidate][data-selected=true]').waitFor();
    expect(await imageBox.isChecked()).toBe(true);
    await page.getByRole('button', { name: '提交审核' }).click();
    // Below the pass line a note is asked for; at or above it the submission goes at once.
    const submitDialog = page.getByRole('dialog', { name: '提交前预览' });
    if (await submitDialog.waitFor({ timeout: 2_000 }).then(() => true, () => false)) {
      await submitDialog.getByLabel('给审核人的说明（必填）').fill('分数略低，开头已人工确认');
      await submitDialog.getByRole('button', { name: '确认提交审核' }).click();
    }
    await statusIs('待审核');
    await logout();
  });

  it('the supervisor accepts the invitation from the header', async () => {
    await login('sup1', PASSWORDS.first);
    await changePassword(PASSWORDS.first, PASSWORDS.second);
    const inbox = page.getByTestId('invitations-button');
    await expect.poll(() => inbox.locator('..').innerText()).toContain('1');
    await inbox.click();
    const panel = page.getByTestId('invitation-inbox');
    await panel.getByText('admin 邀请你以运营身份加入').waitFor();
    await screenshot('07b-invitation-inbox');
    await expectAccessible('invitation-inbox');
    // On a phone the panel is narrower than the screen and its buttons stay visible.
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot('07c-invitation-inbox-phone');
    expect((await panel.boundingBox())!.width).toBeLessThanOrEqual(390);
    await panel.getByRole('button', { name: '接受' }).waitFor({ state: 'visible' });
    await page.setViewportSize({ width: 1440, height: 900 });
    await panel.getByRole('button', { name: '接受' }).click();
    await page.getByText('已加入 Default').waitFor();
    await panel.getByText('没有待处理的邀请').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('combobox', { name: '当前工作空间' }).click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: 'Default · 运营' }).waitFor();
    await page.keyboard.press('Escape');
  });

  it('the supervisor rejects it with a reason', async () => {
    await page.getByRole('link', { name: '审核队列' }).click();
    const item = page.getByTestId('review-item').filter({ hasText: `#${state.taskId}` });
    await item.waitFor();
    expect(await item.getByTestId('review-set-A').innerText()).toContain('总分');
    await screenshot('08-review-queue');
    await expectAccessible('review');
    await item.getByRole('button', { name: '驳回' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: '驳回' }).click();
    await dialog.getByText('请填写驳回原因').waitFor();
    await dialog.getByLabel('驳回原因').fill('标题太平淡，换一个有数字的标题');
    await dialog.getByRole('button', { name: '驳回' }).click();
    await item.waitFor({ state: 'detached' });
    await logout();
  });

  it('the operator sees the reason and history, cannot reach review or admin pages, and resubmits', async () => {
    await login('op1', PASSWORDS.first);
    await changePassword(PASSWORDS.first, PASSWORDS.second);
    const nav = page.getByRole('navigation', { name: '主导航' });
    await nav.getByRole('link', { name: '任务列表' }).waitFor();
    expect(await nav.getByRole('link', { name: '审核队列' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: '用户' }).count()).toBe(0);
    for (const target of ['/review', '/admin/users', '/admin/workspaces']) {
      await page.goto(`${server.url}${target}`);
      await page.getByText('无权访问').waitFor();
    }
    await screenshot('09-operator-forbidden');
    await page.goto(`${server.url}/banned-words`);
    await page.getByText('运营只能查看词库').waitFor();
    expect(await page.getByRole('button', { name: '添加违禁词' }).count()).toBe(0);
    await openTask();
    await page.getByTestId('reject-reason').getByText('标题太平淡，换一个有数字的标题').waitFor();
    await page.getByTestId('review-history').getByText('标题太平淡，换一个有数字的标题').waitFor();
    await page.getByTestId('preference-panel').waitFor();
    await screenshot('10-task-rejected');
    const setA = page.getByTestId('set-A');
    await setA.getByRole('button', { name: '编辑' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('正文').fill('改写后的正文：早上装好热水，中午还是烫的。');
    await dialog.getByRole('button', { name: '保存' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await setA.getByTestId('chosen-text').getByText('改写后的正文：早上装好热水，中午还是烫的。').waitFor();
    // The edited text is the set's chosen one, shown first with its mark (the desk has no collapse).
    const chosen = setA.getByTestId('chosen-text');
    await chosen.getByText('已编辑').waitFor();
    if ((await setA.locator('[data-testid=chosen-text][data-selected=true]').count()) === 0) {
      await chosen.getByRole('button', { name: '选用' }).click();
    }
    await page.getByRole('button', { name: '提交审核' }).click();
    // Below the pass line a note is asked for; at or above it the submission goes at once.
    const submitDialog = page.getByRole('dialog', { name: '提交前预览' });
    if (await submitDialog.waitFor({ timeout: 2_000 }).then(() => true, () => false)) {
      await submitDialog.getByLabel('给审核人的说明（必填）').fill('分数略低，开头已人工确认');
      await submitDialog.getByRole('button', { name: '确认提交审核' }).click();
    }
    await statusIs('待审核');
    await logout();
  });

  it('the supervisor approves', async () => {
    await login('sup1', PASSWORDS.second);
    await page.goto(`${server.url}/review`);
    const item = page.getByTestId('review-item').filter({ hasText: `#${state.taskId}` });
    await item.getByRole('button', { name: '通过' }).click();
    // Approving asks first: an approval is what lets the note be posted.
    await page.getByRole('button', { name: '确认通过' }).click();
    await item.waitFor({ state: 'detached' });
    await logout();
  });

  it('the operator packages the task and downloads the zip through a one-time token', async () => {
    await login('op1', PASSWORDS.second);
    await page.waitForURL('**/tasks');
    await openTask();
    await statusIs('已通过');
    await page.getByRole('button', { name: '生成交付包' }).click();
    const row = page.getByTestId('package-row').first();
    await page.locator('[data-testid=package-row][data-status=ready]').first().waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: '下载', exact: true }).click()]);
    const file = path.join(SHOTS, 'package.zip');
    await download.saveAs(file);
    const zip = readFileSync(file);
    expect(zip.subarray(0, 2).toString()).toBe('PK');
    const names = zipEntries(zip);
    expect(names.some((n) => /^note_01_A\/note\.txt$/.test(n))).toBe(true);
    expect(names.some((n) => /^note_01_A\/\d{2}_\w+\.(jpg|jpeg|png|webp)$/.test(n))).toBe(true);
    const fileUrl = new URL(download.url());
    expect(fileUrl.pathname).toMatch(/\/delivery-packages\/\d+\/download-file$/);
    // A one-time download token, not the session JWT (three dot-separated parts), is in the link.
    const token = fileUrl.searchParams.get('token')!;
    expect(token.length).toBeGreaterThan(10);
    expect(token).not.toBe(await page.evaluate(() => localStorage.getItem('cps.token')));
    expect(token.split('.')).not.toHaveLength(3);
    // The download marked the package 已下载 by itself (issue 30): nothing left to mark by hand.
    await page.locator('[data-testid=package-row][data-status=downloaded]').first().waitFor();
    expect(await row.getByRole('button', { name: '标记已下载' }).isDisabled()).toBe(true);
    await screenshot('11-task-delivered');
  });

  it('starts a fission from the task, shows the failed image, retries it and downloads the zip', async () => {
    await page.getByRole('button', { name: '发起裂变' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('裂变数量（1–5）').fill('2');
    await dialog.getByRole('button', { name: '开始裂变' }).click();
    await page.waitForURL(/\/fission\/\d+$/);
    // The e2e server fails the first fission image (LOCAL_PROVIDER_IMAGE_FAILURES=fission:1). A set
    // has one image, like its source: set 1 gets none, set 2 its one, so the fission completes.
    await expect.poll(() => page.getByTestId('fission-status').innerText(), { timeout: 90_000 }).toBe('已完成');
    const notes = page.getByTestId('fission-note');
    await expect.poll(() => notes.count()).toBe(2);
    await expect.poll(() => page.getByTestId('image-error').count()).toBe(1);
    const failed = notes.filter({ has: page.getByTestId('image-error') });
    expect(await failed.getAttribute('data-status')).toBe('failed');
    await page.getByText('完成 1，失败 1，共 2').waitFor();
    expect(await notes.filter({ hasNot: page.getByTestId('image-error') }).getByRole('button', { name: /重试失败图片/ }).isDisabled()).toBe(true);
    await screenshot('12-fission-image-failed');
    await expectAccessible('fission with a failed image');

    await failed.getByRole('button', { name: /重试失败图片/ }).click();
    await page.getByText('已排队重试：主图').waitFor();
    await expect.poll(() => page.getByTestId('image-error').count(), { timeout: 60_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('image-pending').count(), { timeout: 60_000 }).toBe(0);
    await expect.poll(() => notes.evaluateAll((cards) => cards.map((c) => c.getAttribute('data-status')))).toEqual(['image_done', 'image_done']);
    await page.getByText('完成 2，失败 0，共 2').waitFor();
    // Every note shows its image, loaded.
    await expect
      .poll(() => notes.evaluateAll((cards) => cards.map((c) => [...c.querySelectorAll('img')].filter((i) => i.naturalWidth > 0).length)))
      .toEqual([1, 1]);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: '下载全部' }).click()]);
    const file = path.join(SHOTS, 'fission.zip');
    await download.saveAs(file);
    const names = zipEntries(readFileSync(file));
    expect(names).toContain('checklist.md');
    for (const set of ['set_01', 'set_02']) expect(names.filter((n) => new RegExp(`^${set}/\\d{2}_\\w+\\.jpg$`).test(n)), set).toHaveLength(1);
    await screenshot('12-fission');
    await expectAccessible('fission');
  });

  it('imports an external text into an import-track task', async () => {
    await page.goto(`${server.url}/tasks/new?product_id=${state.productId}`);
    await page.getByLabel('主题').fill('办公室下午茶');
    await page.locator('label').filter({ hasText: '导入文案' }).click();
    await page.getByRole('button', { name: '创建并开始生成' }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    const form = page.locator('form').filter({ has: page.getByLabel('文案内容') });
    await form.getByLabel('角度标签').fill('下午茶');
    await form.getByLabel('文案内容').fill('下午三点，给自己泡一杯热茶，保温杯里的温度刚刚好。');
    await form.getByRole('button', { name: '导入' }).click();
    // Every text shows where its set does (the desk has no collapse): the set's first as its chosen or best one.
    const imported = page.locator('[data-testid=chosen-text], [data-testid=text-candidate]').filter({ hasText: '导入' });
    await imported.first().waitFor();
    expect(await imported.first().innerText()).toContain('下午三点');
    await screenshot('12b-import-track');
  });

  it('switches the whole interface to English', async () => {
    await page.goto(`${server.url}/tasks`);
    await chooseOption(page.getByRole('combobox', { name: '界面语言' }), 'English');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.getByRole('link', { name: 'Tasks' }).waitFor();
    // Navigation and page chrome are English only; data (product names, themes) stays as entered.
    expect(await nav.innerText()).not.toMatch(/[\u4e00-\u9fff]/);
    expect(await page.locator('thead').innerText()).not.toMatch(/[\u4e00-\u9fff]/);
    // Reloaded: once opened, an antd Select leaves an unnamed hidden listbox behind (antd issue),
    // which is not what a page offers on arrival. The language choice survives the reload.
    await page.reload();
    await nav.getByRole('link', { name: 'Tasks' }).waitFor();
    await screenshot('13-tasks-english');
    await expectAccessible('tasks');
    await chooseOption(page.getByRole('combobox', { name: 'Language' }), '中文');
    await page.getByRole('navigation', { name: '主导航' }).waitFor();
  });

  it('sends an expired session back to the login page', async () => {
    await page.evaluate(() => localStorage.setItem('cps.token', 'not-a-valid-token'));
    await page.goto(`${server.url}/tasks`);
    await page.getByText('登录已过期，请重新登录').waitFor();
    expect(page.url()).toContain('/login');
  });

  it('raised no uncaught errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});

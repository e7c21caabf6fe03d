/**
 * The task desk (issue #30) in a real Chromium against the real server (offline provider, zh-CN):
 * at 1440×900 the sets A/B/C side by side, a text selected in one click where it shows, the open
 * problems following a one-tile retry, an image slot's versions switched (the selection moves),
 * a landscape PNG uploaded with crop framing, a 12 MB file refused before sending in Chinese; at
 * 390×844 one set at a time, swiped and picked by tab, nothing wider than the screen; submitting
 * a text below the pass line with a note. Screenshots go to e2e/screenshots/desk/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, available, demoAdmin, launchChromium, until, VIEWPORTS } from './browser';
import { ROOT, startServer, type RunningServer } from './server';

const SHOTS = path.join(ROOT, 'web', 'e2e', 'screenshots', 'desk');
const PASSWORD = 'e2e-desk-admin-pass-1';

interface Image {
  candidate_id: number;
  strategy: string;
  seq: number;
  role: string;
  url: string | null;
  status: string;
  source: string;
  is_regen: boolean;
  is_selected: boolean;
}
interface Detail {
  id: number;
  status: string;
  text_candidates: { candidate_id: number; strategy: string; is_selected: boolean; score: { total: number } }[];
  image_candidates: Image[];
}

describe.skipIf(!available)('the task desk in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let desk: Page;
  let phone: Page;
  let page: Page;
  const pageErrors: string[] = [];
  const uploads: string[] = [];
  let token = '';
  let taskId = 0;

  const detail = () => api<Detail>(server, 'GET', `/tasks/${taskId}`, token);

  async function shot(name: string) {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    await page
      .waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity), undefined, { timeout: 3_000 })
      .catch(() => undefined);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  async function openTask(p: Page) {
    page = p;
    await page.goto(`${server.url}/tasks/${taskId}`);
    await page.getByTestId('set-A').waitFor();
    await page.getByTestId('image-candidate').first().waitFor();
  }

  /** Nothing on the page is wider than the screen. */
  const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The first task image fails, so the desk shows a problem to retry.
    server = await startServer({ LOCAL_PROVIDER_IMAGE_FAILURES: 'task:1' });
    token = await demoAdmin(server, PASSWORD);
    const productId = (await api<{ items: { id: number }[] }>(server, 'GET', '/products', token)).items[0]!.id;
    taskId = (await api<{ id: number }>(server, 'POST', '/tasks', token, { product_id: productId, theme: '秋冬通勤的保温杯', text_count: 6, image_count: 3, track: 'ai' })).id;
    await until(async () => ((await detail()).status === 'pending_selection' ? true : undefined), 'the task to finish generating');

    browser = await launchChromium();
    for (const viewport of ['desk', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[viewport], locale: 'zh-CN', isMobile: viewport === 'phone', hasTouch: viewport === 'phone' });
      context.setDefaultTimeout(15_000);
      const p = await context.newPage();
      p.on('pageerror', (e) => pageErrors.push(e.message));
      p.on('request', (r) => {
        if (r.url().includes('/image-candidates/upload')) uploads.push(r.url());
      });
      await p.goto(`${server.url}/login`);
      await p.evaluate((v) => {
        localStorage.setItem('cps.token', v);
        localStorage.setItem('cps.lang', 'zh-CN');
      }, token);
      if (viewport === 'desk') desk = p;
      else phone = p;
    }
    page = desk;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows the sets side by side on a desk, each with its text, score and images', async () => {
    await openTask(desk);
    const boxes = await Promise.all(['A', 'B', 'C'].map(async (s) => (await page.getByTestId(`set-${s}`).boundingBox())!));
    for (const [i, box] of boxes.entries()) {
      expect(box.width).toBeGreaterThan(300);
      if (i > 0) {
        expect(Math.abs(box.y - boxes[i - 1]!.y)).toBeLessThan(2);
        expect(box.x).toBeGreaterThanOrEqual(boxes[i - 1]!.x + boxes[i - 1]!.width);
      }
    }
    expect(await page.getByTestId('set-tab-A').isVisible()).toBe(false);
    for (const s of ['A', 'B', 'C']) {
      const set = page.getByTestId(`set-${s}`);
      await expect(set.getByTestId('chosen-text').getByTestId('text-score').textContent()).resolves.toMatch(/^\d+ 分$/);
      expect(await set.getByTestId('image-candidate').count()).toBe(3);
    }
    expect(await noSideways()).toBe(true);
    await shot('01-desk-sets');
  });

  it('lists the failed image as an open problem until its own retry settles', async () => {
    await openTask(desk);
    const failedTile = page.locator('[data-testid="image-candidate"][data-status="failed"]');
    expect(await failedTile.count()).toBe(1);
    await page.getByTestId('stream-errors').waitFor();
    await page.getByTestId('stage-image').getByText('8 张成功 · 1 张失败 / 共 9').waitFor();
    expect(await page.getByTestId('retry-all').textContent()).toBe('全部重试（1 张）');
    await shot('02-problem');
    const id = Number(await failedTile.getAttribute('data-candidate-id'));
    const sent = page.waitForRequest((r) => r.url().includes('/retry-images'));
    await failedTile.getByTestId('retry-one').click();
    expect((await sent).postDataJSON()).toEqual({ candidate_ids: [id] });
    // No reload: the stream's image brings the tile, the problems and the counter up to date.
    await page.locator(`[data-testid="image-candidate"][data-candidate-id="${id}"][data-status="done"]`).waitFor({ timeout: 60_000 });
    await page.getByTestId('stream-errors').waitFor({ state: 'detached' });
    await page.getByTestId('stage-image').getByText('9/9').waitFor();
    expect(await page.getByTestId('retry-all').count()).toBe(0);
  });

  it('selects a text in one click where it shows', async () => {
    await openTask(desk);
    const setB = page.getByTestId('set-B');
    const other = setB.getByTestId('text-candidate').first();
    const id = Number(await other.getAttribute('data-candidate-id'));
    await other.getByRole('button', { name: '选用', exact: true }).click();
    await setB.locator(`[data-testid="chosen-text"][data-candidate-id="${id}"][data-selected="true"]`).waitFor();
    for (const s of ['A', 'C']) await page.getByTestId(`set-${s}`).getByTestId('chosen-text').getByRole('button', { name: '选用', exact: true }).click();
    await until(async () => ((await detail()).text_candidates.filter((c) => c.is_selected).length === 3 ? true : undefined), 'three selected texts');
    expect((await detail()).text_candidates.find((c) => c.candidate_id === id)?.is_selected).toBe(true);
  });

  it('switches an image slot to its regenerated version, which then ships', async () => {
    await openTask(desk);
    const original = (await detail()).image_candidates.find((i) => i.strategy === 'A' && i.seq === 2)!;
    await api(server, 'POST', `/tasks/${taskId}/image-candidates/${original.candidate_id}/regenerate`, token, {});
    const regen = await until(async () => (await detail()).image_candidates.find((i) => i.is_regen && i.status === 'done' && i.strategy === 'A' && i.seq === 2), 'the regenerated image');
    const tile = page.locator('[data-testid="image-candidate"][data-slot="A:2"]');
    await tile.getByTestId('version-switch').waitFor();
    expect(await page.locator('[data-slot="A:2"]').count()).toBe(1);
    expect(await tile.getByTestId('version-option').allTextContents()).toEqual(['原图', '重新生成 1']);
    // Nothing selected yet: the newest shows, marked as a regeneration.
    expect(await tile.getAttribute('data-candidate-id')).toBe(String(regen.candidate_id));
    expect(await tile.getByTestId('version-badge').textContent()).toBe('重新生成 1');
    await tile.getByTestId('version-option').filter({ hasText: '原图' }).click();
    // Not check(): the tick is the task's optimistic update, applied a moment after the click.
    await tile.getByRole('checkbox').click();
    await page.locator(`[data-slot="A:2"][data-candidate-id="${original.candidate_id}"][data-selected="true"]`).waitFor();
    await until(async () => ((await detail()).image_candidates.find((i) => i.candidate_id === original.candidate_id)?.is_selected ? true : undefined), 'the original selected');
    await tile.getByTestId('version-option').filter({ hasText: '重新生成 1' }).click();
    await until(async () => {
      const now = (await detail()).image_candidates;
      return now.find((i) => i.candidate_id === regen.candidate_id)?.is_selected && !now.find((i) => i.candidate_id === original.candidate_id)?.is_selected ? true : undefined;
    }, 'the selection moved to the regenerated version');
    await page.locator(`[data-slot="A:2"][data-candidate-id="${regen.candidate_id}"][data-selected="true"]`).waitFor();
    await shot('03-versions');
  });

  it('refuses a 12 MB file before sending, in Chinese', async () => {
    await openTask(desk);
    const before = uploads.length;
    const tile = page.locator('[data-testid="image-candidate"][data-slot="C:2"]');
    await tile.locator('input[type="file"]').setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(12 * 1024 * 1024, 1) });
    expect(await tile.getByTestId('upload-refusal').textContent()).toBe('图片超过 10 MB，未上传');
    expect(uploads.length).toBe(before);
    await shot('04-refused');
  });

  it('uploads a landscape PNG framed by a crop window at the right edge; it takes the slot', async () => {
    await openTask(desk);
    // Left half red, right half blue: a window at the right keeps blue.
    const width = 1600;
    const height = 900;
    const raw = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(x < width / 2 ? [220, 30, 30] : [30, 60, 220], (y * width + x) * 3);
    const png = await sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
    const tile = page.locator('[data-testid="image-candidate"][data-slot="C:2"]');
    await tile.locator('input[type="file"]').setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: png });
    const dialog = page.getByTestId('framing-dialog');
    await dialog.waitFor();
    await dialog.getByRole('slider').focus();
    await page.keyboard.press('End');
    await shot('05-framing');
    await page.getByRole('button', { name: '上传', exact: true }).click();
    const uploaded = await until(async () => (await detail()).image_candidates.find((i) => i.source === 'upload' && i.status === 'done'), 'the uploaded image');
    expect(uploaded).toMatchObject({ strategy: 'C', seq: 2, is_selected: true });
    const served = sharp(Buffer.from(await (await fetch(`${server.url}${uploaded.url}`)).arrayBuffer()));
    expect(await served.metadata()).toMatchObject({ width: 1080, height: 1440 });
    // The window at the right edge (focus 1): blue where a centred window would still be red.
    const { data } = await served.extract({ left: 100, top: 700, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
    expect(data[2]!).toBeGreaterThan(data[0]!);
    await page.locator(`[data-slot="C:2"][data-candidate-id="${uploaded.candidate_id}"][data-version="upload"][data-selected="true"]`).waitFor();
    await shot('06-uploaded');
  });

  it('shows one set at a time on a phone, swiped or picked by tab', async () => {
    await openTask(phone);
    const inView = async (s: string) => {
      const box = (await page.getByTestId(`set-${s}`).boundingBox())!;
      return box.x >= -1 && box.x + box.width <= VIEWPORTS.phone.width + 1;
    };
    expect(await page.getByTestId('set-tab-A').isVisible()).toBe(true);
    expect(await inView('A')).toBe(true);
    expect(await inView('B')).toBe(false);
    expect(await noSideways()).toBe(true);
    await shot('07-phone-set-A');
    // A real touch swipe to the left.
    await page.getByTestId('set-A').getByTestId('chosen-text').scrollIntoViewIfNeeded();
    const strip = (await page.getByTestId('desk-sets').boundingBox())!;
    // Scrolled into the set, the tabs stay in sight below the console's header.
    const header = (await page.locator('.ant-layout-header').boundingBox())!;
    const tabs = (await page.getByTestId('set-tab-A').boundingBox())!;
    expect(tabs.y).toBeGreaterThanOrEqual(header.y + header.height - 1);
    expect(tabs.y).toBeLessThan(header.y + header.height + 20);
    const cdp = await page.context().newCDPSession(page);
    const y = Math.round(Math.max(strip.y, 0) + 200);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: 330, y }] });
    for (let x = 310; x >= 50; x -= 20) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y }] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await until(async () => ((await page.getByTestId('set-tab-B').getAttribute('aria-selected')) === 'true' ? true : undefined), 'set B after a swipe', 10_000);
    await until(async () => ((await inView('B')) ? true : undefined), 'set B in view', 10_000);
    await page.getByTestId('set-tab-C').click();
    await until(async () => ((await inView('C')) ? true : undefined), 'set C in view', 10_000);
    expect(await page.getByTestId('set-tab-C').getAttribute('aria-selected')).toBe('true');
    expect(await noSideways()).toBe(true);
    await shot('08-phone-set-C');
    // The framing question fits the phone too (asked, then cancelled: nothing sent).
    const before = uploads.length;
    const wide = await sharp({ create: { width: 800, height: 450, channels: 3, background: '#3a7bd5' } }).png().toBuffer();
    await page.locator('[data-testid="image-candidate"][data-slot="C:3"]').locator('input[type="file"]').setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: wide });
    await page.getByTestId('framing-dialog').waitFor();
    await page.getByText('完整保留').click();
    await page
      .waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'), undefined, { timeout: 3_000 })
      .catch(() => undefined);
    const dialogBox = (await page.getByRole('dialog').filter({ has: page.getByTestId('framing-dialog') }).boundingBox())!;
    expect(dialogBox.x).toBeGreaterThanOrEqual(0);
    expect(dialogBox.x + dialogBox.width).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    await page.screenshot({ path: path.join(SHOTS, '09-phone-framing.png') });
    await page.getByRole('dialog').filter({ has: page.getByTestId('framing-dialog') }).getByRole('button', { name: /^取\s*消$/ }).click();
    await page.getByTestId('framing-dialog').waitFor({ state: 'detached' });
    expect(uploads.length).toBe(before);
  });

  it('submits a text below the pass line with a note for the reviewer', async () => {
    await openTask(desk);
    const d = await detail();
    expect(d.text_candidates.some((c) => c.is_selected && c.score.total < 80)).toBe(true);
    // Set A ships its three slots (the task has selected images: only selected ones ship).
    for (const seq of [1, 3]) {
      await page.locator(`[data-testid="image-candidate"][data-slot="A:${seq}"]`).getByRole('checkbox').click();
      await page.locator(`[data-testid="image-candidate"][data-slot="A:${seq}"][data-selected="true"]`).waitFor();
    }
    await until(async () => ((await detail()).image_candidates.filter((i) => i.strategy === 'A' && i.is_selected).length === 3 ? true : undefined), 'set A with three selected images');
    await page.getByTestId('submit-review').click();
    const note = page.getByTestId('submit-note');
    await note.waitFor();
    // The preview carousel steps with its arrow.
    const preview = page.getByTestId('phone-preview').first();
    await preview.getByTestId('preview-next').click();
    await preview.getByText(/^第 2 \/ \d 张$/).waitFor();
    await page.getByRole('button', { name: /确认提交审核/ }).click();
    await page.getByText('请填写说明再提交').waitFor();
    await page.getByLabel('给审核人的说明（必填）').fill('开头已人工改写，数据有出处');
    await shot('10-submit-note');
    const sent = page.waitForRequest((r) => r.url().includes('/submit-review'));
    await page.getByRole('button', { name: /确认提交审核/ }).click();
    expect((await sent).postDataJSON()).toEqual({ note: '开头已人工改写，数据有出处' });
    await until(async () => ((await detail()).status === 'pending_review' ? true : undefined), 'the task in review');
    expect(pageErrors).toEqual([]);
  });
});

/**
 * The review desk (issue 30) in a real Chromium against the real server (offline `local`
 * provider, zh-CN): an operator submits with a note, a supervisor rejects with a reason, the
 * operator changes the text and resubmits; the supervisor sees the note, the last rejection and
 * a word diff of what changed, comments on a line, and approves after confirming. Then the phone
 * check: products and users at 390×844 show cards and nothing wider than the screen.
 * Screenshots go to e2e/screenshots/review-desk/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, available, demoAdmin, launchChromium, until, VIEWPORTS } from './browser';
import { ROOT, startServer, type RunningServer } from './server';

const SHOTS = path.join(ROOT, 'web', 'e2e', 'screenshots', 'review-desk');
const PASSWORD = 'e2e-desk-admin-pass-2';

interface Detail {
  id: number;
  status: string;
  text_candidates: { candidate_id: number; strategy: string; title: string; content: string; is_selected: boolean; score: { total: number } }[];
}

describe.skipIf(!available)('the review desk in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let desk: Page;
  let phone: Page;
  let page: Page;
  const pageErrors: string[] = [];
  let adminToken = '';
  let operatorToken = '';
  let supervisorToken = '';
  let taskId = 0;
  let chosenId = 0;

  async function shot(name: string) {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    await page
      .waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity), undefined, { timeout: 3_000 })
      .catch(() => undefined);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  /** A user of the demo workspace, signed in with the first password changed. */
  async function member(username: string, role: string): Promise<string> {
    const first = `${username}-first-pass-1`;
    await api(server, 'POST', '/users', adminToken, { username, email: `${username}@example.com`, password: first, role });
    const login = (await api<{ token: string }>(server, 'POST', '/auth/login', undefined, { username, password: first })).token;
    return (await api<{ token: string }>(server, 'POST', '/auth/change-password', login, { current_password: first, new_password: `${first}-b` })).token;
  }

  async function signIn(p: Page, token: string) {
    await p.goto(`${server.url}/login`);
    await p.evaluate((v) => {
      localStorage.setItem('cps.token', v);
      localStorage.setItem('cps.lang', 'zh-CN');
    }, token);
  }

  const overflow = () => page.evaluate(() => document.scrollingElement!.scrollWidth);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer();
    adminToken = await demoAdmin(server, PASSWORD);
    operatorToken = await member('desk-op', 'operator');
    supervisorToken = await member('desk-sup', 'supervisor');

    const productId = (await api<{ items: { id: number }[] }>(server, 'GET', '/products', operatorToken)).items[0]!.id;
    taskId = (await api<{ id: number }>(server, 'POST', '/tasks', operatorToken, { product_id: productId, theme: '秋冬通勤的保温杯', text_count: 3, image_count: 1, track: 'ai' })).id;
    const d = await until(async () => {
      const r = await api<Detail>(server, 'GET', `/tasks/${taskId}`, operatorToken);
      return r.status === 'pending_selection' ? r : undefined;
    }, 'the task to finish generating');
    chosenId = d.text_candidates.find((c) => c.strategy === 'A')!.candidate_id;
    await api(server, 'POST', `/tasks/${taskId}/text-candidates/select`, operatorToken, { candidate_id: chosenId });

    browser = await launchChromium();
    for (const viewport of ['desk', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[viewport], locale: 'zh-CN', isMobile: viewport === 'phone', hasTouch: viewport === 'phone' });
      context.setDefaultTimeout(15_000);
      const p = await context.newPage();
      p.on('pageerror', (e) => pageErrors.push(e.message));
      await signIn(p, viewport === 'desk' ? supervisorToken : adminToken);
      if (viewport === 'desk') desk = p;
      else phone = p;
    }
    page = desk;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('the operator submits with a note; the supervisor rejects it with a reason on the desk', async () => {
    await api(server, 'POST', `/tasks/${taskId}/submit-review`, operatorToken, { note: '第一次提交，请看 A 组' });
    page = desk;
    await page.goto(`${server.url}/review`);
    const card = page.getByTestId('review-item').filter({ hasText: `#${taskId}` });
    await card.getByTestId('review-note').getByText('第一次提交，请看 A 组').waitFor();
    await card.getByTestId('review-reject').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: /驳\s*回/ }).click();
    await dialog.getByText('请填写驳回原因').waitFor();
    await dialog.getByLabel('驳回原因').fill('第二段太空，写清楚保温几小时');
    await dialog.getByRole('button', { name: /驳\s*回/ }).click();
    await page.getByText(`任务 #${taskId} 已驳回，已移出队列，运营会看到原因`).waitFor();
    await card.waitFor({ state: 'detached' });
  });

  it('the operator changes the text and resubmits; the supervisor sees the note, the rejection and the diff', async () => {
    const d = await api<Detail>(server, 'GET', `/tasks/${taskId}`, operatorToken);
    const before = d.text_candidates.find((c) => c.candidate_id === chosenId)!;
    const lines = before.content.split('\n');
    lines.splice(1, 0, '实测保温六小时，早上装的热水下午还烫嘴');
    await api(server, 'POST', `/tasks/${taskId}/text-candidates/${chosenId}/edit`, operatorToken, { content: lines.join('\n') });
    await until(async () => {
      const r = await api<Detail>(server, 'GET', `/tasks/${taskId}`, operatorToken);
      return r.text_candidates.some((c) => c.content.includes('实测保温六小时')) ? true : undefined;
    }, 'the edit');
    await api(server, 'POST', `/tasks/${taskId}/submit-review`, operatorToken, { note: '按意见补了保温时长（第二行）' });

    page = desk;
    await page.goto(`${server.url}/review`);
    const card = page.getByTestId('review-item').filter({ hasText: `#${taskId}` });
    await card.getByTestId('review-note').getByText('按意见补了保温时长（第二行）').waitFor();
    const previous = card.getByTestId('review-previous');
    await previous.getByText('第二段太空，写清楚保温几小时').waitFor();
    await previous.getByText(/desk-sup 于/).waitFor();
    const diff = card.getByTestId('diff-content-A');
    expect(await diff.getAttribute('data-changed')).toBe('true');
    expect(await diff.locator('ins').allTextContents()).toContainEqual(expect.stringContaining('保温六小时'));
    expect(await card.getByTestId('diff-title-A').textContent()).toBe('未改动');
    await shot('01-desk-context');
  });

  it('comments on a line, and approves after confirming', async () => {
    page = desk;
    const card = page.getByTestId('review-item').filter({ hasText: `#${taskId}` });
    await card.getByTestId('review-body-A').getByTestId('review-line').nth(1).click();
    await card.getByTestId('comment-target').getByText('A 组正文第 2 行').waitFor();
    await card.getByTestId('comment-body').fill('“烫嘴”换个说法');
    await card.getByTestId('comment-send').click();
    const comment = card.getByTestId('comment').filter({ hasText: '“烫嘴”换个说法' });
    await comment.waitFor();
    await comment.getByText('A 组正文第 2 行').waitFor();
    await comment.getByText('实测保温六小时，早上装的热水下午还烫嘴').waitFor();
    // The commented line is marked in the text.
    await card.getByTestId('review-body-A').getByTestId('review-line').nth(1).getByLabel('此行有 1 条未解决评论').waitFor();
    const stored = await api<{ items: { anchor: { kind: string; line?: number }; body: string }[] }>(server, 'GET', `/tasks/${taskId}/comments`, operatorToken);
    expect(stored.items.map((c) => [c.anchor.kind, c.anchor.line, c.body])).toEqual([['text', 2, '“烫嘴”换个说法']]);
    await shot('02-desk-comment');

    await card.getByTestId('review-approve').click();
    await page.getByRole('button', { name: '确认通过' }).click();
    await page.getByText(`任务 #${taskId} 已通过，已移出队列`).waitFor();
    await card.waitFor({ state: 'detached' });
    expect((await api<Detail>(server, 'GET', `/tasks/${taskId}`, supervisorToken)).status).toBe('approved');
    await shot('03-desk-approved');
  });

  it('on a phone: the review desk, products and users fit 390 px, as cards', async () => {
    page = phone;
    // A fresh submission to look at on the phone.
    const productId = (await api<{ items: { id: number }[] }>(server, 'GET', '/products', operatorToken)).items[0]!.id;
    const id = (await api<{ id: number }>(server, 'POST', '/tasks', operatorToken, { product_id: productId, theme: '手机上看的任务', text_count: 3, image_count: 1, track: 'ai' })).id;
    const d = await until(async () => {
      const r = await api<Detail>(server, 'GET', `/tasks/${id}`, operatorToken);
      return r.status === 'pending_selection' ? r : undefined;
    }, 'the second task');
    await api(server, 'POST', `/tasks/${id}/text-candidates/select`, operatorToken, { candidate_id: d.text_candidates[0]!.candidate_id });
    await api(server, 'POST', `/tasks/${id}/submit-review`, operatorToken, { note: '手机审核试试' });
    await page.goto(`${server.url}/review`);
    await page.getByTestId('review-item').first().waitFor();
    expect(await overflow()).toBeLessThanOrEqual(390);
    await shot('04-phone-review');

    for (const [route, name] of [
      ['/products', '05-phone-products'],
      ['/admin/users', '06-phone-users'],
    ] as const) {
      await page.goto(`${server.url}${route}`);
      await page.getByTestId('row-card').first().waitFor();
      expect(await page.locator('.ant-table').count(), route).toBe(0);
      expect(await overflow(), route).toBeLessThanOrEqual(390);
      // No 8 px frame round the page.
      expect(await page.evaluate(() => getComputedStyle(document.body).marginTop), route).toBe('0px');
      await shot(name);
    }
    expect(pageErrors).toEqual([]);
  });
});

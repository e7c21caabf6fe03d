/**
 * What every browser test shares: where Chromium is (a CI run without it fails instead of
 * skipping), the two sizes the console is checked at, launching it, and calling the API to set
 * up content.
 */
import { existsSync } from 'node:fs';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, type RunningServer } from './server';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const available = existsSync(CHROMIUM);
if (!available) {
  if (process.env.CI === 'true') throw new Error(`Chromium not found at ${CHROMIUM} (CI=true: the browser tests must run)`);
  console.log(`\n[e2e] skipped: Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)\n`);
}

export const VIEWPORTS = { desk: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;
export type Viewport = keyof typeof VIEWPORTS;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** One API call with the contract's envelope unwrapped; anything but code 0 throws with the reply. */
export async function api<T>(server: RunningServer, method: string, route: string, token?: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}/api/v1${route}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await res.json()) as { code: number; data: T };
  if (envelope.code !== 0) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(envelope)}`);
  return envelope.data;
}

/** The bootstrapped admin with the first password changed to `password`, switched to the Demo workspace: its token. */
export async function demoAdmin(server: RunningServer, password: string): Promise<string> {
  const first = await api<{ token: string }>(server, 'POST', '/auth/login', undefined, { username: 'admin', password: ADMIN_PASSWORD });
  const token = (await api<{ token: string }>(server, 'POST', '/auth/change-password', first.token, { current_password: ADMIN_PASSWORD, new_password: password })).token;
  const workspaces = await api<{ items: { id: number; name: string }[] }>(server, 'GET', '/workspaces', token);
  const demo = workspaces.items.find((w) => w.name === 'Demo')!;
  return (await api<{ token: string }>(server, 'POST', '/workspaces/switch', token, { workspace_id: demo.id })).token;
}

/** Polls `probe` until it answers something, for server-side work the test waits on. */
export async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Words of an English sentence in the Chinese interface. */
export const ENGLISH_SENTENCE = /[A-Za-z][A-Za-z'’]*(?:[ ,:;()-]+[A-Za-z][A-Za-z'’]*){3,}/;

/** A page per viewport (desk, phone), signed in with `token` in zh-CN; uncaught page errors go to `pageErrors`. */
export async function signedInPages(browser: Browser, server: RunningServer, token: string, pageErrors: string[]): Promise<Record<Viewport, Page>> {
  const pages = {} as Record<Viewport, Page>;
  for (const viewport of ['desk', 'phone'] as const) {
    const phone = viewport === 'phone';
    const context = await browser.newContext({ viewport: VIEWPORTS[viewport], locale: 'zh-CN', isMobile: phone, hasTouch: phone, deviceScaleFactor: phone ? 2 : 1 });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(`${viewport}: ${e.message}`));
    await page.goto(`${server.url}/login`);
    await page.evaluate((v) => {
      localStorage.setItem('cps.token', v);
      localStorage.setItem('cps.lang', 'zh-CN');
    }, token);
    pages[viewport] = page;
  }
  return pages;
}

/** Fonts, images and animations settled: what a person would see. */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(400);
}

/**
 * Layout and words of the page as it stands: no sideways scroll on a phone, no English sentence
 * or raw value (`rawValue`: the page's enum values and reason keys) in the text, axe clean.
 */
export async function pageProblems(page: Page, viewport: Viewport, rawValue: RegExp): Promise<string[]> {
  const found: string[] = [];
  const layout = await page.evaluate(() => ({
    width: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
    innerWidth: window.innerWidth,
    text: document.body.innerText,
  }));
  if (viewport === 'phone' && layout.width > layout.innerWidth) found.push(`document ${layout.width} px wide in a ${layout.innerWidth} px screen`);
  for (const line of layout.text.split('\n')) {
    if (ENGLISH_SENTENCE.test(line) || rawValue.test(line)) found.push(`not Chinese: "${line.trim().slice(0, 120)}"`);
  }
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => `axe ${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
  return [...found, ...violations];
}

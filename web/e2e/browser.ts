/**
 * What every browser test shares: where Chromium is (a CI run without it fails instead of
 * skipping), the two sizes the console is checked at, launching it, and calling the API to set
 * up content.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import type { RunningServer } from './server';

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

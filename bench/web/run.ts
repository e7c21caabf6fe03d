/**
 * The web client's first load. From a fresh production build:
 *
 * 1. bundle sizes per page (the JavaScript a first visit to that page loads), against the
 *    login page's budget; writes bench/out/web-bundles.json;
 * 2. the login page in real Chromium (playwright-core, CHROMIUM_PATH or /usr/bin/chromium) from
 *    the real server, cold cache, under CDP network throttling with DevTools' "Fast 4G" (165 ms,
 *    9 Mbit/s down) and "Fast 3G" (562.5 ms, 1.6 Mbit/s) profiles: the bytes on the wire (every
 *    response, headers included) and the time from navigation until the login button is on
 *    screen, compressed (the browser's own Accept-Encoding) and uncompressed (Accept-Encoding:
 *    identity) alternating, five rounds each, medians compared. Prints the ratios (targets:
 *    transferred ≤ 1.1 × the same responses gzipped at level 9, time ≤ 0.7 × the uncompressed
 *    time) and writes bench/out/web-load.json.
 *
 * Run: node --import tsx bench/web/run.ts   (or: npm run bench -w web)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain ESM helper shared with the e2e budget check
import { routeSizes } from '../../web/scripts/bundle-sizes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LOGIN_BUDGET_GZIP = 300 * 1024;
const ROUNDS = 5;

execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: path.join(root, 'web'), stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
const sizes = routeSizes(path.join(root, 'web', 'dist')) as {
  entry: { raw: number; gzip: number };
  routes: { route: string; total: { raw: number; gzip: number }; beyondEntry: { raw: number; gzip: number } }[];
};

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log(`entry (shared by every page): ${kb(sizes.entry.raw)} raw, ${kb(sizes.entry.gzip)} gzip`);
console.log(['page'.padEnd(22), 'total gzip'.padStart(12), 'beyond entry'.padStart(14)].join(' '));
for (const r of sizes.routes) {
  console.log([r.route.padEnd(22), kb(r.total.gzip).padStart(12), kb(r.beyondEntry.gzip).padStart(14)].join(' '));
}
const login = sizes.routes.find((r) => r.route === 'LoginPage');
if (login) {
  console.log(`\nlogin page: ${kb(login.total.gzip)} gzip of a ${kb(LOGIN_BUDGET_GZIP)} budget (ratio ${(login.total.gzip / LOGIN_BUDGET_GZIP).toFixed(2)})`);
}
mkdirSync(path.join(root, 'bench', 'out'), { recursive: true });
writeFileSync(path.join(root, 'bench', 'out', 'web-bundles.json'), `${JSON.stringify({ at: new Date().toISOString(), ...sizes }, null, 2)}\n`);
if (login && login.total.gzip > LOGIN_BUDGET_GZIP) process.exitCode = 1;

await measureFirstLoad();

async function measureFirstLoad() {
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    console.log(`\nfirst load in Chromium: skipped, no Chromium at ${executablePath} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
    return;
  }
  const { chromium } = await import('playwright-core');
  const { startServer } = await import('../../web/e2e/server.js');
  const server = await startServer();
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  try {
    // DevTools' presets (front_end/core/sdk/NetworkManager.ts): bytes per second, latency in ms.
    const profiles = [
      { name: 'Fast 4G', latency: 60 * 2.75, downloadThroughput: ((9 * 1000 * 1000) / 8) * 0.9, uploadThroughput: ((1.5 * 1000 * 1000) / 8) * 0.9 },
      { name: 'Fast 3G', latency: 150 * 3.75, downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9, uploadThroughput: ((750 * 1000) / 8) * 0.9 },
    ];
    const load = async (profile: (typeof profiles)[number], compressed: boolean) => {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...profile, connectionType: 'cellular4g' });
      if (!compressed) await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': 'identity' } });
      let bytes = 0;
      const urls = new Set<string>();
      const encodings = new Set<string>();
      cdp.on('Network.responseReceived', (e) => {
        urls.add(e.response.url);
        const encoding = Object.entries(e.response.headers).find(([k]) => k.toLowerCase() === 'content-encoding')?.[1];
        encodings.add(String(encoding ?? 'identity'));
      });
      cdp.on('Network.loadingFinished', (e) => {
        bytes += e.encodedDataLength;
      });
      const started = performance.now();
      await page.goto(`${server.url}/login`, { waitUntil: 'commit' });
      await page.locator('button[type=submit]').waitFor({ state: 'visible', timeout: 120_000 });
      const ms = performance.now() - started;
      await context.close();
      return { ms, bytes, urls: [...urls], encodings: [...encodings] };
    };

    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const results = [];
    let gzippedSize = 0;
    for (const profile of profiles) {
      const runs = { compressed: [] as Awaited<ReturnType<typeof load>>[], identity: [] as Awaited<ReturnType<typeof load>>[] };
      for (let round = 0; round < ROUNDS; round++) {
        runs.compressed.push(await load(profile, true));
        runs.identity.push(await load(profile, false));
      }
      if (!gzippedSize) {
        // What the page's responses weigh gzipped at level 9, fetched as they are (identity).
        for (const url of runs.identity[0]!.urls) {
          const res = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
          gzippedSize += gzipSync(Buffer.from(await res.arrayBuffer()), { level: 9 }).length;
        }
      }
      const row = {
        profile: profile.name,
        compressed_ms: Math.round(median(runs.compressed.map((r) => r.ms))),
        identity_ms: Math.round(median(runs.identity.map((r) => r.ms))),
        compressed_bytes: median(runs.compressed.map((r) => r.bytes)),
        identity_bytes: median(runs.identity.map((r) => r.bytes)),
        gzipped_bytes: gzippedSize,
        encodings: { compressed: runs.compressed[0]!.encodings, identity: runs.identity[0]!.encodings },
        time_ratio: 0,
        transfer_ratio_vs_gzip: 0,
      };
      row.time_ratio = +(row.compressed_ms / row.identity_ms).toFixed(2);
      row.transfer_ratio_vs_gzip = +(row.compressed_bytes / row.gzipped_bytes).toFixed(2);
      results.push(row);
    }
    console.log(`\nlogin page, first load in Chromium (cold cache; medians of ${ROUNDS} alternating rounds; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
    for (const r of results) {
      console.log(
        `${r.profile}: compressed ${kb(r.compressed_bytes)} in ${r.compressed_ms} ms (${r.encodings.compressed.join(', ')}); uncompressed ${kb(r.identity_bytes)} in ${r.identity_ms} ms; gzip -9 of the same responses ${kb(r.gzipped_bytes)}`,
      );
      console.log(`  transferred / gzipped ${r.transfer_ratio_vs_gzip} (target ≤ 1.1), time compressed / uncompressed ${r.time_ratio} (target ≤ 0.7)`);
    }
    writeFileSync(path.join(root, 'bench', 'out', 'web-load.json'), `${JSON.stringify({ at: new Date().toISOString(), loadavg: loadavg(), results }, null, 2)}\n`);
  } finally {
    await browser.close();
    await server.stop();
  }
}

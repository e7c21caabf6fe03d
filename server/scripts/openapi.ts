/**
 * The OpenAPI document the app serves at GET /api/v1/openapi.json, built in process on a
 * throw-away SQLite data directory (no port, no worker): `npm run lint:openapi` lints it and
 * `npm run gen:api -w web` generates the web client's types and constants from it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createRuntime } from '../src/runtime.js';

export async function buildOpenapiDocument(): Promise<Record<string, any>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-openapi-'));
  try {
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'warn', API_DOCS: 'public' });
    const silent = new Writable({ write: (_chunk, _enc, done) => done() });
    const runtime = await createRuntime(config, { logDestination: silent, worker: false });
    try {
      const app = await buildApp(runtime.ctx);
      const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      await app.close();
      if (response.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${response.statusCode}: ${response.body}`);
      return response.json();
    } finally {
      await runtime.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, setStatus, workspaceWithProduct, type Workspace } from './fixtures.js';
import { openSse } from './sse-client.js';

// The interval is shortened here so the test sees several beats; production keeps 15 s.
const HEARTBEAT_MS = 150;

describe('event stream heartbeat', () => {
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    server = await startTestServer({ worker: false, env: { SSE_HEARTBEAT_MS: String(HEARTBEAT_MS) } });
    ws = await workspaceWithProduct(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('defaults to a beat every 15 s and refuses a nonsensical interval', () => {
    expect(loadConfig({ DATA_DIR: server.dataDir }).sseHeartbeatMs).toBe(15_000);
    expect(() => loadConfig({ DATA_DIR: server.dataDir, SSE_HEARTBEAT_MS: 'soon' })).toThrow(/SSE_HEARTBEAT_MS/);
    expect(() => loadConfig({ DATA_DIR: server.dataDir, SSE_HEARTBEAT_MS: '5' })).toThrow('SSE_HEARTBEAT_MS must be an integer ≥ 10, got "5"');
  });

  it('writes a comment line at each interval on an idle stream, no events, and stops when the stream ends', async () => {
    const task = await createTask(server, ws);
    await setStatus(server, task.id, 'generating');
    const { ticket } = await ok(server, 'POST', `/tasks/${task.id}/sse-ticket`, ws.token);
    const opened = Date.now();
    const stream = await openSse(`${server.url}${API}/tasks/${task.id}/stream?ticket=${encodeURIComponent(ticket)}`);
    expect(stream.status).toBe(200);

    await stream.waitFor(() => stream.comments.length >= 3, 5_000);
    const elapsed = Date.now() - opened;
    expect(stream.comments.slice(0, 3)).toEqual(['keep-alive', 'keep-alive', 'keep-alive']);
    // Three beats cannot come sooner than three intervals.
    expect(elapsed).toBeGreaterThanOrEqual(3 * HEARTBEAT_MS - 20);
    expect(stream.events).toEqual([]);

    await server.ctx.events.append(task.id, [{ name: 'done', data: { status: 'completed' } }]);
    await stream.ended;
    const beatsAtEnd = stream.comments.length;
    await new Promise((resolve) => setTimeout(resolve, 3 * HEARTBEAT_MS));
    expect(stream.comments.length).toBe(beatsAtEnd);
    expect(stream.events.map((e) => e.event)).toEqual(['done']);
  });
});

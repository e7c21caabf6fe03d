import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewTaskEvent } from '../../src/events/types.js';
import { settledPackage, seedImage, seedTask, seedText, imageBytes } from '../delivery/fixtures.js';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { openSse, type SseStream } from '../tasks/sse-client.js';

/**
 * Issue 28, finding 5: after a member's removal, role change or password change, their open
 * task streams end and the one-time tokens they were given stop working. Everything through
 * the HTTP API; the events come from the service's own bus (as a generation would write them).
 */
let server: TestServer;
let admin: string;
let workspaceId: number;
let productId: number;
let seq = 0;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.adminToken();
  workspaceId = (await server.request('GET', '/api/v1/auth/me', { token: admin })).body.data.current_workspace_id;
  productId = (await server.request('POST', '/api/v1/products', { token: admin, body: { name: '测试产品', category: '护肤', source: 'custom' } })).body.data.id;
});
afterAll(async () => server?.close());

const progress = (done: number): NewTaskEvent => ({ name: 'progress', data: { stage: 'text', done, total: 100 } });

async function member() {
  return userWithRole(server, `rv-${++seq}`, 'operator');
}

async function openStream(taskId: number, token: string): Promise<SseStream> {
  const ticket = await server.request('POST', `/api/v1/tasks/${taskId}/sse-ticket`, { token });
  expect(ticket.status, ticket.text).toBe(200);
  const stream = await openSse(`${server.url}/api/v1/tasks/${taskId}/stream?ticket=${ticket.body.data.ticket}&follow=true`);
  expect(stream.status).toBe(200);
  return stream;
}

/** The ways an admin (or the user) ends a session in this workspace. */
const endings: Array<[string, (user: { token: string; id: number }) => Promise<void>]> = [
  ['removal from the workspace', async (u) => void expect((await server.request('DELETE', `/api/v1/workspaces/${workspaceId}/members/${u.id}`, { token: admin })).status).toBe(200)],
  ['a role change', async (u) => void expect((await server.request('POST', `/api/v1/workspaces/${workspaceId}/members`, { token: admin, body: { user_id: u.id, role: 'supervisor' } })).status).toBe(200)],
  [
    'a password change',
    async (u) => void expect((await server.request('POST', '/api/v1/auth/change-password', { token: u.token, body: { current_password: 'second-password-2', new_password: 'third-password-3' } })).status).toBe(200),
  ],
];

describe('an open task stream ends with the session that opened it', () => {
  for (const [what, endSession] of endings) {
    it(`after ${what}, the stream ends and carries nothing written after it`, async () => {
      const user = await member();
      const taskId = await seedTask(server, { workspaceId, productId, operatorId: user.id, status: 'generating' });
      const stream = await openStream(taskId, user.token);
      await server.ctx.events.append(taskId, [progress(1)]);
      await stream.waitFor((events) => events.some((e) => e.data?.done === 1));

      await endSession(user);
      await server.ctx.events.append(taskId, [progress(2), progress(3)]);
      await stream.ended;
      expect(stream.events.map((e) => e.data?.done)).toEqual([1]);
      // The admin's own stream of the same task goes on: only that session ended.
      const watcher = await openStream(taskId, admin);
      await watcher.waitFor((events) => events.some((e) => e.data?.done === 3));
      watcher.close();
    });
  }

  it('a ticket issued before the removal no longer opens a stream', async () => {
    const user = await member();
    const taskId = await seedTask(server, { workspaceId, productId, operatorId: user.id, status: 'generating' });
    const ticket = (await server.request('POST', `/api/v1/tasks/${taskId}/sse-ticket`, { token: user.token })).body.data.ticket;
    await endings[1]![1](user);
    const refused = await openSse(`${server.url}/api/v1/tasks/${taskId}/stream?ticket=${ticket}`);
    expect({ status: refused.status, code: refused.body?.code }).toEqual({ status: 401, code: 40101 });
  });
});

describe('a download token ends with the session it was issued in', () => {
  async function readyPackage(user: { token: string; id: number }) {
    const task = { id: await seedTask(server, { workspaceId, productId, operatorId: user.id, status: 'approved' }), workspaceId };
    await seedText(server, task, { strategy: 'A', selected: true });
    await seedImage(server, task, { strategy: 'A', seq: 1, selected: true, data: await imageBytes({ color: '#336699', width: 300, height: 400 }) });
    const created = await server.request('POST', `/api/v1/tasks/${task.id}/package`, { token: user.token });
    expect(created.status, created.text).toBe(200);
    const pkg = await settledPackage(server, user.token, created.body.data.delivery_package_id);
    expect(pkg.status).toBe('ready');
    return pkg.id as number;
  }

  for (const [what, endSession] of endings) {
    it(`after ${what}, a token issued before answers 410`, async () => {
      const user = await member();
      const id = await readyPackage(user);
      const before = await server.request('POST', `/api/v1/delivery-packages/${id}/download-token`, { token: user.token });
      const control = await server.request('POST', `/api/v1/delivery-packages/${id}/download-token`, { token: admin });
      await endSession(user);
      const refused = await fetch(`${server.url}/api/v1/delivery-packages/${id}/download-file?token=${before.body.data.token}`);
      expect({ status: refused.status, code: ((await refused.json()) as { code: number }).code }).toEqual({ status: 410, code: 41000 });
      // Someone else's token for the same package still works.
      const served = await fetch(`${server.url}/api/v1/delivery-packages/${id}/download-file?token=${control.body.data.token}`);
      expect(served.status).toBe(200);
      await served.arrayBuffer();
    });
  }
});

import type { StoredTaskEvent } from '../../src/events/types.js';
import type { TestServer } from '../helpers/server.js';

export async function eventsOf(server: TestServer, taskId: number): Promise<StoredTaskEvent[]> {
  return server.ctx.events.replay(taskId, 0);
}

export function named(events: StoredTaskEvent[], name: StoredTaskEvent['name']): any[] {
  return events.filter((e) => e.name === name).map((e) => e.data);
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    // Short: a local generation settles in tens of milliseconds, and each wait ends on the next poll.
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function taskDetail(server: TestServer, token: string, taskId: number): Promise<any> {
  const res = await server.request('GET', `/api/v1/tasks/${taskId}`, { token });
  if (res.status !== 200) throw new Error(`GET /tasks/${taskId} → ${res.status} ${res.text}`);
  return res.body.data;
}

export async function settledDetail(server: TestServer, token: string, taskId: number): Promise<any> {
  return waitFor(async () => {
    const detail = await taskDetail(server, token, taskId);
    return detail.status === 'pending' || detail.status === 'generating' ? undefined : detail;
  });
}

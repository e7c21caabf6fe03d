/**
 * A second process sharing the test server's database (and Redis, when REDIS_URL is set) that
 * appends task events on request: each stdin line `{"taskId", "events"}` is answered `ok`.
 * It shows the events reach streams held by another process.
 */
import readline from 'node:readline';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';

const runtime = await createRuntime(loadConfig(), { migrate: false });
process.stdout.write('ready\n');
for await (const line of readline.createInterface({ input: process.stdin })) {
  const { taskId, events } = JSON.parse(line) as { taskId: number; events: Array<{ name: any; data: unknown }> };
  await runtime.ctx.events.append(taskId, events);
  process.stdout.write('ok\n');
}
await runtime.close();

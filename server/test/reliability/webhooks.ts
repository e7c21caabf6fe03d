import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { adminToken, Deployment, must, query, sleep, type ScenarioResult } from './harness.js';

const EVENTS = 1_000;
const TASKS = 10;
const FAILURE_RATE = 0.3;
const SECRET = 'prove-webhook-secret';

/**
 * Scenario 8 (issue 16): 1,000 real state changes (submit and reject, on ten tasks, over HTTP)
 * notify a generic receiver that fails 30 % of its requests (500). One API process and two
 * workers sharing one SQLite database (the in-process queue across processes; the BullMQ lane is
 * proven by server/test/webhooks on Redis). Every event must be delivered, every request signed,
 * and no delivery id acknowledged (answered 2xx) twice.
 */
export async function webhookScenario(): Promise<ScenarioResult> {
  const acked = new Map<string, number>();
  let requests = 0;
  let failed = 0;
  let badSignatures = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      const raw = Buffer.concat(chunks).toString('utf8');
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(req.headers['x-signature'] ?? ''));
      const expected = m && createHmac('sha256', SECRET).update(`${m[1]}.${raw}`).digest();
      if (!m || !timingSafeEqual(expected!, Buffer.from(m[2]!, 'hex'))) badSignatures++;
      if (Math.random() < FAILURE_RATE) {
        failed++;
        res.writeHead(500).end('injected failure');
        return;
      }
      const id = (JSON.parse(raw) as { id: string }).id;
      acked.set(id, (acked.get(id) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;

  const d = await Deployment.create({
    env: {
      ALLOW_PRIVATE_PROVIDER_URLS: '1',
      RATE_LIMIT_PER_MINUTE: '1000000',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_MS: '1000',
      JOB_NOTIFY_CONCURRENCY: '16',
    },
  });
  try {
    const [api] = await Promise.all([d.start('api'), d.start('worker'), d.start('worker')]);
    const base = api.url!;
    const token = await adminToken(base);
    await must(base, 'POST', '/api-keys', token, { provider: 'local', api_key: 'local-prove-key' });
    const product = await must(base, 'POST', '/products', token, { name: '通知产品', category: '护肤', source: 'custom' });
    const tasks: number[] = [];
    for (let i = 0; i < TASKS; i++) tasks.push((await must(base, 'POST', '/tasks', token, { product_id: product.id, theme: `通知 ${i}`, text_count: 1, image_count: 0, track: 'ai' })).id);
    for (const id of tasks) {
      for (;;) {
        const detail = await must(base, 'GET', `/tasks/${id}`, token);
        if (detail.status === 'pending_selection') {
          await must(base, 'POST', `/tasks/${id}/text-candidates/select`, token, { candidate_id: detail.text_candidates[0].candidate_id });
          break;
        }
        if (detail.status === 'failed') throw new Error(`task ${id} failed: ${detail.failure_reason}`);
        await sleep(100);
      }
    }
    await must(base, 'POST', '/webhooks', token, { name: '可靠性', kind: 'generic', url: receiverUrl, events: ['task.submitted', 'task.rejected'], secret: SECRET });

    const started = Date.now();
    // Ten tasks in parallel, each submitted and rejected in turn: two events per round.
    await Promise.all(
      tasks.map(async (id) => {
        for (let round = 0; round < EVENTS / TASKS / 2; round++) {
          await must(base, 'POST', `/tasks/${id}/submit-review`, token);
          await must(base, 'POST', `/review/${id}/reject`, token, { reason: `第 ${round} 轮` });
        }
      }),
    );
    const changesSeconds = (Date.now() - started) / 1000;
    const deadline = Date.now() + 120_000;
    let rows: Array<{ status: string; n: string }> = [];
    while (Date.now() < deadline) {
      rows = await query(d, 'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status');
      if (!rows.some((r) => r.status === 'pending')) break;
      await sleep(250);
    }
    const seconds = (Date.now() - started) / 1000;
    const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
    const uids = (await query<{ uid: string }>(d, "SELECT uid FROM webhook_deliveries WHERE status = 'delivered'")).map((r) => r.uid);
    const twice = [...acked.values()].filter((n) => n > 1).length;
    const unacked = uids.filter((uid) => !acked.has(uid)).length;
    const lost = EVENTS - count('delivered');
    return {
      scenario: '8 webhooks (receiver fails 30 %)',
      load: `${EVENTS} events from ${EVENTS} state changes in ${changesSeconds.toFixed(1)} s, all delivered ${seconds.toFixed(1)} s after the first; 1 API + 2 workers, SQLite`,
      faults: `${failed} of ${requests} requests answered 500`,
      badInputs: '-',
      lostData: `${lost} undelivered (${count('pending')} pending, ${count('failed')} failed); ${twice} ids acknowledged twice; ${badSignatures} bad signatures`,
      failures: lost + twice + unacked + badSignatures + (acked.size === EVENTS ? 0 : 1) + d.errorLines().length,
      notes: [
        ...(acked.size !== EVENTS ? [`receiver acknowledged ${acked.size} distinct ids, expected ${EVENTS}`] : []),
        ...(unacked ? [`${unacked} deliveries marked delivered that the receiver never acknowledged`] : []),
        ...d.errorLines().slice(0, 2).map((l) => `error log: ${l.slice(0, 200)}`),
      ],
    };
  } finally {
    await d.close();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

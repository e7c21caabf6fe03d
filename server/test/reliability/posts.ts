import { createServer } from 'node:http';
import { adminToken, Deployment, must, percentile, query, sleep, type ScenarioResult } from './harness.js';

const POSTS = 1_000;
const SPREAD_MS = 60_000;
const LEAD_MS = 8_000;
const SWEEP_MS = 250;

/**
 * Scenario 9 (issue 31): 1,000 posts fall due within one minute on PostgreSQL + Redis with one
 * API and two workers; halfway through, one worker is killed (SIGKILL) and a new one started.
 * Every post must become `due` exactly once and its `post.due` event reach the team's receiver:
 * one outbox row per post, every delivery acknowledged, no post announced twice. The posts are
 * written straight into the database (planning 1,000 approved notes through the API is the
 * HTTP tests' subject, not this one's); everything after that is the running service.
 */
export async function postsDueScenario(): Promise<ScenarioResult> {
  const announced = new Map<number, Set<string>>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; event: string; data: { post_id: number } };
      if (body.event === 'post.due') announced.set(body.data.post_id, (announced.get(body.data.post_id) ?? new Set()).add(body.id));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;

  const d = await Deployment.create({
    postgres: true,
    redis: true,
    env: { ALLOW_PRIVATE_PROVIDER_URLS: '1', POST_SWEEP_MS: String(SWEEP_MS), WEBHOOK_POLL_MS: '100', JOB_NOTIFY_CONCURRENCY: '16', JOB_LEASE_MS: '2000' },
  });
  try {
    const [api, first] = await Promise.all([d.start('api'), d.start('worker'), d.start('worker')]);
    const base = api.url!;
    const token = await adminToken(base);
    const me = await must(base, 'GET', '/auth/me', token);
    const account = await must(base, 'POST', '/accounts', token, { name: '压测号' });
    await must(base, 'POST', '/webhooks', token, { name: '到点', kind: 'generic', url: receiverUrl, events: ['post.due'], secret: 'prove-posts' });
    const startAt = Date.now() + LEAD_MS;
    await query(
      d,
      `INSERT INTO posts (workspace_id, account_id, status, scheduled_at, note_key, title, body, tags, warnings, created_by, created_at, updated_at)
       SELECT $1, $2, 'scheduled', to_timestamp(($3::bigint + (i - 1) * $4::bigint) / 1000.0), 'prove:' || i, '压测笔记 ' || i, '正文', '[]', '[]', $5, now(), now()
       FROM generate_series(1, $6::int) AS i`,
      [me.current_workspace_id, account.id, startAt, Math.floor(SPREAD_MS / POSTS), me.id, POSTS],
    );

    // Halfway through the minute, one worker dies without a word and another takes its place.
    await sleep(Math.max(0, startAt + SPREAD_MS / 2 - Date.now()));
    await d.kill(first!);
    await d.start('worker');

    const deadline = startAt + SPREAD_MS + 60_000;
    let due = 0;
    while (Date.now() < deadline) {
      due = Number((await query(d, "SELECT count(*) AS n FROM posts WHERE status = 'due'"))[0].n);
      const pending = Number((await query(d, "SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'delivered'"))[0].n);
      if (due === POSTS && pending === 0 && announced.size === POSTS) break;
      await sleep(250);
    }
    const outbox = await query<{ post_id: number; n: string }>(d, "SELECT (payload->'data'->>'post_id')::int AS post_id, count(*) AS n FROM webhook_deliveries WHERE event = 'post.due' GROUP BY 1");
    const rowsTwice = outbox.filter((r) => Number(r.n) > 1).length;
    const undelivered = Number((await query(d, "SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'delivered'"))[0].n);
    const announcedTwice = [...announced.values()].filter((ids) => ids.size > 1).length;
    const lateness = (await query<{ ms: string }>(d, 'SELECT extract(epoch FROM (due_at - scheduled_at)) * 1000 AS ms FROM posts WHERE due_at IS NOT NULL')).map((r) => Number(r.ms));
    const missing = POSTS - due;
    return {
      scenario: '9 posts due (kill -9 of a worker mid-minute)',
      load: `${POSTS} posts due within ${SPREAD_MS / 1000} s; 1 API + 2 workers, PG + Redis, sweep every ${SWEEP_MS} ms; due after their time p50 ${Math.round(percentile(lateness, 50))} ms, p99 ${Math.round(percentile(lateness, 99))} ms, max ${Math.round(Math.max(...lateness))} ms`,
      faults: '1 worker killed (SIGKILL) and replaced halfway',
      badInputs: '-',
      lostData: `${missing} not due; ${outbox.length} posts with a post.due event, ${rowsTwice} with two; ${undelivered} undelivered; ${POSTS - announced.size} never announced, ${announcedTwice} announced twice`,
      failures: missing + rowsTwice + undelivered + (POSTS - outbox.length) + (POSTS - announced.size) + announcedTwice + d.errorLines().length,
      notes: d.errorLines().slice(0, 2).map((l) => `error log: ${l.slice(0, 200)}`),
    };
  } finally {
    await d.close();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

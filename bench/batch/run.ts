/**
 * Batch benchmark (issue 32): a batch of 60 tasks through the real HTTP API and the worker,
 * against a fake OpenAI-compatible provider that enforces a per-minute request limit (a sliding
 * 60 s window, answering 429 with OpenAI's body and Retry-After past it) with latencies on the
 * scale of real ones (text 1.2 s, image 2.5 s: real models take longer; the ratio is what is
 * measured). The connection's budget is the provider's limit. Printed, measured in one run:
 *
 *   - batch wall time ÷ the limit's bound (calls the batch made ÷ the allowed rate): target ≤ 1.15
 *   - the share of requests answered 429: target ≤ 2 %
 *   - failed tasks: target 0
 *   - a single task's time to its first text candidate while the batch runs ÷ the same task on a
 *     quiet connection, both measured here: target ≤ 1.5
 *
 * At the shipped defaults (JOB_BULK_CONCURRENCY, BATCH_PARALLEL_TASKS, the preset's concurrency).
 *
 *   npx tsx bench/batch/run.ts
 *   BENCH_RPM=300 BENCH_TASKS=60 npx tsx bench/batch/run.ts
 *   REDIS_URL=redis://127.0.0.1:6379 DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/batch/run.ts
 */
import { startFakeOpenAI } from '../../server/test/generation/fake-openai.js';
import { startTestServer } from '../../server/test/helpers/server.js';
import { ok, workspaceWithProduct } from '../../server/test/tasks/fixtures.js';

const RPM = Number(process.env.BENCH_RPM ?? 600);
const TASKS = Number(process.env.BENCH_TASKS ?? 60);
const TEXT_MS = 1_200;
const IMAGE_MS = 2_500;
const TASK_SHAPE = { text_count: 3, image_count: 1 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const fake = await startFakeOpenAI({ textLatencyMs: TEXT_MS, imageLatencyMs: IMAGE_MS, rateLimit: { perMinute: RPM } });
  const server = await startTestServer({ worker: true, env: { ALLOW_PRIVATE_PROVIDER_URLS: '1', ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}) } });
  try {
    const ws = await workspaceWithProduct(server, { apiKey: false });
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-bench', base_url: fake.url, rpm: RPM });
    // An agency's week: 20 themes × 3 tasks each (TASKS / 3 themes).
    const themes = Array.from({ length: Math.ceil(TASKS / 3) }, (_, i) => `批量主题${i + 1}`);

    /** Create a single task and wait for its first text candidate: the time a person waits for something to read. */
    const firstCandidateMs = async (theme: string) => {
      const started = performance.now();
      const task = await ok(server, 'POST', '/tasks', ws.token, { product_id: ws.productId, theme, track: 'ai', ...TASK_SHAPE });
      for (;;) {
        const detail = await ok(server, 'GET', `/tasks/${task.id}`, ws.token);
        if (detail.text_candidates.length > 0) return performance.now() - started;
        if (detail.status === 'failed') throw new Error(`single task failed: ${detail.failure_reason}`);
        await sleep(25);
      }
    };

    // A quiet connection first (twice: the first warms the image threads).
    await firstCandidateMs('单独任务预热');
    const aloneMs = await firstCandidateMs('单独任务');
    // Paced at the budget, calls never exceed it in any window: no need to let the window empty.

    const callsBefore = fake.calls.length;
    const started = performance.now();
    const batch = await ok(server, 'POST', '/batches', ws.token, { name: '基准批次', matrix: { product_ids: [ws.productId], themes, tasks_each: 3, ...TASK_SHAPE } });
    // Once the batch holds the connection at its limit, a person starts a task of their own.
    let underLoadMs = 0;
    const single = (async () => {
      await sleep(20_000);
      underLoadMs = await firstCandidateMs('批量进行中的单独任务');
    })();
    let final: any;
    for (;;) {
      final = await ok(server, 'GET', `/batches/${batch.id}`, ws.token);
      if (final.status !== 'running') break;
      await sleep(200);
    }
    const wallMs = performance.now() - started;
    await single;
    // The single task's own calls ran inside the window too: they count against the rate.
    const during = fake.calls.slice(callsBefore).filter((c) => c.startedAt <= Date.now());
    const refused = during.filter((c) => c.status === 429).length;
    const answered = during.length - refused;
    const boundMs = (answered / RPM) * 60_000;

    const rows: Array<[string, string, string]> = [
      ['batch wall time ÷ limit bound', `${(wallMs / boundMs).toFixed(3)} (${(wallMs / 1000).toFixed(1)} s ÷ ${(boundMs / 1000).toFixed(1)} s for ${answered} calls at ${RPM}/min)`, '≤ 1.15'],
      ['requests answered 429', `${((refused / during.length) * 100).toFixed(2)} % (${refused} of ${during.length})`, '≤ 2 %'],
      ['failed tasks', `${final.counts.failed} of ${final.total}`, '0'],
      ['first candidate under load ÷ alone', `${(underLoadMs / aloneMs).toFixed(2)} (${Math.round(underLoadMs)} ms ÷ ${Math.round(aloneMs)} ms)`, '≤ 1.5'],
    ];
    console.log(`\nbench/batch: ${TASKS} tasks (${TASK_SHAPE.text_count} texts, ${TASK_SHAPE.image_count} image per set), provider limit ${RPM} requests/min, text ${TEXT_MS} ms, image ${IMAGE_MS} ms, ${process.env.REDIS_URL ? 'Redis' : 'in-process'} queue\n`);
    console.log('| measure | value | target |\n| --- | --- | --- |');
    for (const [name, value, target] of rows) console.log(`| ${name} | ${value} | ${target} |`);
    console.log(`\nbatch: ${JSON.stringify(final.counts)}, measured ${final.rate_per_minute} tasks/min`);
  } finally {
    await server.close();
    await fake.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

import { startFakeOpenAI } from '../generation/fake-openai.js';
import { adminToken, Deployment, must, query, sleep, startChaosProxy, TERMINAL, type ScenarioResult } from './harness.js';

/**
 * Scenario 3: 30 % of provider calls answer 429, 500 or nothing (the attempt times out). Every
 * task must settle, `pending_selection` or `failed` with a readable reason, within a bound set by
 * the retry budget; none may stay `pending`/`generating`.
 */
export async function faultScenario(long: boolean): Promise<ScenarioResult> {
  const fake = await startFakeOpenAI();
  const chaos = await startChaosProxy(fake.url, 0.3);
  const d = await Deployment.create({
    env: {
      PROVIDER_OPENAI_BASE_URL: chaos.url,
      PROVIDER_TIMEOUT_MS: '1500',
      PROVIDER_MAX_RETRIES: '2',
      PROVIDER_RETRY_BASE_MS: '50',
      PROVIDER_RETRY_MAX_WAIT_MS: '500',
      JOB_CONCURRENCY: '4',
      JOB_BACKOFF_MS: '200',
    },
  });
  try {
    const proc = await d.start('all');
    const token = await adminToken(proc.url!);
    await must(proc.url!, 'POST', '/api-keys', token, { provider: 'openai', api_key: 'sk-prove-faults-0003' });
    const product = await must(proc.url!, 'POST', '/products', token, { name: '故障产品', category: '护肤', source: 'custom' });
    const n = long ? 60 : 20;
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push((await must(proc.url!, 'POST', '/tasks', token, { product_id: product.id, theme: `故障 ${i}`, text_count: 3, image_count: 2, track: 'ai' })).id);
    // Bound: every call may use its whole retry budget (3 attempts × 1.5 s + waits), per step.
    const deadline = Date.now() + (long ? 600_000 : 240_000);
    let rows: Array<{ id: number; status: string; failure_reason: string | null }> = [];
    while (Date.now() < deadline) {
      rows = await query(d, `SELECT id, status, failure_reason FROM tasks WHERE id IN (${ids.join(',')})`);
      if (rows.every((r) => TERMINAL.has(r.status))) break;
      await sleep(500);
    }
    const stuck = rows.filter((r) => !TERMINAL.has(r.status));
    const failed = rows.filter((r) => r.status === 'failed');
    const unreadable = failed.filter((f) => !f.failure_reason || f.failure_reason.length < 10 || /undefined|\[object|\.ts:\d/.test(f.failure_reason)).length;
    const reasons = [...new Set(failed.map((f) => (f.failure_reason ?? '').slice(0, 140)))];
    const faults = chaos.injected['429'] + chaos.injected['500'] + chaos.injected.timeout;
    return {
      scenario: '3 provider faults (30 % 429/500/timeout)',
      load: `${n} tasks, ${faults + chaos.passed} provider calls`,
      faults: `${chaos.injected['429']}× 429, ${chaos.injected['500']}× 500, ${chaos.injected.timeout}× timeout`,
      badInputs: '-',
      lostData: `${stuck.length} stuck; ${rows.length - failed.length - stuck.length} pending_selection, ${failed.length} failed (${unreadable} without a readable reason)`,
      failures: stuck.length + unreadable + d.errorLines().filter((l) => /unhandled|internal error/i.test(l)).length,
      notes: [...(stuck.length ? [`stuck: ${stuck.map((s) => `${s.id}:${s.status}`).join(', ')}`] : []), ...reasons.slice(0, 3).map((r) => `a failure reason: ${r}`)],
    };
  } finally {
    await d.close();
    await chaos.close();
    await fake.close();
  }
}

import { call, type Deployment, must, percentile, sleep, storedEvents, TaskFollower, userWithRole, type ScenarioResult } from './harness.js';

export interface LoadOptions {
  name: string;
  /** API processes; operators are spread over them. */
  bases: string[];
  admin: string;
  productBody: Record<string, unknown>;
  operators: number;
  seconds: number;
  deployment: Deployment;
}

/** Accounts the simulated operators share (each account is one rate-limit budget). */
const ACCOUNTS = 20;

/**
 * Scenario 7: operators in a loop of create task → stream its events to `done` → read it →
 * select a text → submit for review → list tasks. Every answer other than the expected 200 is
 * an error; every stream is checked against the stored events; the latency of every call except
 * the stream (the generation itself) goes into the p50/p99.
 */
export async function runLoad(opts: LoadOptions): Promise<ScenarioResult> {
  const base0 = opts.bases[0]!;
  await must(base0, 'POST', '/api-keys', opts.admin, { provider: 'openai', api_key: 'sk-prove-load-0002' });
  const product = await must(base0, 'POST', '/products', opts.admin, opts.productBody);
  const accounts = await Promise.all(
    Array.from({ length: ACCOUNTS }, (_, i) => userWithRole(base0, opts.admin, `load_${Date.now().toString(36)}_${i}`, 'operator')),
  );
  const latencies: number[] = [];
  const errors: string[] = [];
  const followers: TaskFollower[] = [];
  let cycles = 0;
  const end = Date.now() + opts.seconds * 1000;
  const timed = async (base: string, method: string, p: string, token: string, body?: unknown) => {
    const res = await call(base, method, `/api/v1${p}`, { token, ...(body === undefined ? {} : { body }) });
    latencies.push(res.ms);
    if (res.status !== 200) {
      errors.push(`${method} ${p} → ${res.status} ${res.text.slice(0, 120)}`);
      return undefined;
    }
    return res.body.data;
  };
  const operator = async (i: number) => {
    const token = accounts[i % ACCOUNTS]!.token;
    const base = opts.bases[i % opts.bases.length]!;
    // Operators start spread over the first second rather than all in the same millisecond.
    await sleep(Math.random() * 1000);
    while (Date.now() < end) {
      const task = await timed(base, 'POST', '/tasks', token, { product_id: product.id, theme: `负载 ${i}`, text_count: 1, image_count: 0, track: 'ai' });
      if (!task) continue;
      const id = task.id ?? task.task_id;
      const follower = new TaskFollower(() => opts.bases[(i + 1) % opts.bases.length]!, token, id);
      followers.push(follower);
      if (!(await follower.run(end + 60_000))) {
        errors.push(`task ${id}: stream ended without done`);
        continue;
      }
      const detail = await timed(base, 'GET', `/tasks/${id}`, token);
      if (!detail || detail.status !== 'pending_selection') {
        if (detail) errors.push(`task ${id} ended ${detail.status}`);
        continue;
      }
      await timed(base, 'POST', `/tasks/${id}/text-candidates/select`, token, { candidate_id: detail.text_candidates[0].candidate_id });
      await timed(base, 'POST', `/tasks/${id}/submit-review`, token);
      await timed(base, 'GET', '/tasks?page_size=20', token);
      cycles++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: opts.operators }, (_, i) => operator(i)));
  const elapsed = (Date.now() - started) / 1000;
  const lost: string[] = [];
  for (const f of followers) lost.push(...f.problems(await storedEvents(opts.deployment, f.taskId)));
  return {
    scenario: opts.name,
    load: `${opts.operators} operators (${ACCOUNTS} accounts) for ${opts.seconds} s: ${cycles} cycles, ${latencies.length} calls (${(latencies.length / elapsed).toFixed(0)}/s); p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`,
    faults: 'none',
    badInputs: '-',
    lostData: `${lost.length} event gaps/dups in ${followers.length} streams`,
    failures: errors.length + lost.length,
    notes: [...errors.slice(0, 5), ...lost.slice(0, 5)],
  };
}

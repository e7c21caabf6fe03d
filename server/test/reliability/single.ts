import { startFakeOpenAI } from '../generation/fake-openai.js';
import { adminToken, Deployment, type ScenarioResult } from './harness.js';
import { runLoad } from './load.js';

/** Scenario 7a: the load loop against one `npm start` process (API + worker) on SQLite. */
export async function singleProcessLoad(long: boolean): Promise<ScenarioResult> {
  const fake = await startFakeOpenAI();
  const d = await Deployment.create({ env: { PROVIDER_OPENAI_BASE_URL: fake.url, RATE_LIMIT_PER_MINUTE: '1000000', JOB_CONCURRENCY: '4' } });
  try {
    const proc = await d.start('all');
    const admin = await adminToken(proc.url!);
    const result = await runLoad({
      name: '7a load, SQLite (one npm start process)',
      bases: [proc.url!],
      admin,
      productBody: { name: '负载产品', category: '护肤', source: 'custom' },
      operators: 200,
      seconds: long ? 60 : 10,
      deployment: d,
    });
    const errors = d.errorLines();
    if (errors.length) {
      result.failures += errors.length;
      result.notes.push(`${errors.length} error log lines, first: ${errors[0]!.slice(0, 200)}`);
    }
    return result;
  } finally {
    await d.close();
    await fake.close();
  }
}

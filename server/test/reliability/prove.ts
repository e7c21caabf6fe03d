// `npm run prove [-- --long] [-- --only NAME] [-- --record]`: the proof scenarios of issue 9 in one
// command, printing one summary table. Short form (default) for CI; --long for the full figures;
// --record writes the output into docs/reliability.md. Everything talks to 127.0.0.1 only.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { authzScenarios } from './authz.js';
import { postsDueScenario } from './posts.js';
import { faultScenario } from './faults.js';
import { fuzzScenario } from './fuzz.js';
import { postgresReachable, redisReachable, type ScenarioResult } from './harness.js';
import { scaleScenarios } from './scale.js';
import { singleProcessLoad } from './single.js';
import { webhookScenario } from './webhooks.js';

const { values } = parseArgs({ options: { long: { type: 'boolean', default: false }, only: { type: 'string', multiple: true }, record: { type: 'boolean', default: false } } });
const long = values.long!;

interface Group {
  name: string;
  needs: Array<'postgres' | 'redis'>;
  run: () => Promise<ScenarioResult[]>;
  titles: string[];
}

const groups: Group[] = [
  { name: 'scale', needs: ['postgres', 'redis'], run: () => scaleScenarios(long), titles: ['1 multi-process', '2 kill -9', '4 API restart', '7b load PG'] },
  { name: 'faults', needs: [], run: async () => [await faultScenario(long)], titles: ['3 provider faults'] },
  { name: 'fuzz', needs: [], run: async () => [await fuzzScenario(long, 'sqlite')], titles: ['5 hostile input, SQLite'] },
  // The same requests reach PostgreSQL, whose types are stricter (NUL in text, int4 ids): issue 17.
  { name: 'fuzz', needs: ['postgres'], run: async () => [await fuzzScenario(long, 'postgres')], titles: ['5 hostile input, PostgreSQL'] },
  { name: 'authz', needs: [], run: () => authzScenarios(), titles: ['6 authorization matrix', '6 one-time tokens'] },
  { name: 'load', needs: [], run: async () => [await singleProcessLoad(long)], titles: ['7a load SQLite'] },
  { name: 'webhooks', needs: [], run: async () => [await webhookScenario()], titles: ['8 webhooks'] },
  { name: 'posts', needs: ['postgres', 'redis'], run: async () => [await postsDueScenario()], titles: ['9 posts due'] },
];

function table(rows: ScenarioResult[]): string {
  const head = ['scenario', 'load held', 'faults injected', 'bad inputs tried', 'lost data', 'failures'];
  const cells = rows.map((r) => [r.scenario, r.skipped ? `skipped: ${r.skipped}` : r.load, r.faults, r.badInputs, r.lostData, r.skipped ? '-' : String(r.failures)]);
  const esc = (s: string) => s.replaceAll('|', '\\|');
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...cells.map((c) => `| ${c.map(esc).join(' | ')} |`)].join('\n');
}

async function main() {
  const started = Date.now();
  const missing = { postgres: await postgresReachable(), redis: await redisReachable() };
  const results: ScenarioResult[] = [];
  for (const group of groups) {
    if (values.only && !values.only.includes(group.name)) continue;
    const absent = group.needs.map((n) => missing[n]).filter(Boolean) as string[];
    if (absent.length) {
      if (process.env.CI === 'true') throw new Error(`CI=true and ${absent.join('; ')}`);
      for (const title of group.titles) results.push({ scenario: title, load: '', faults: '-', badInputs: '-', lostData: '-', failures: 0, notes: [], skipped: absent.join('; ') });
      continue;
    }
    const t0 = Date.now();
    process.stderr.write(`[prove] ${group.name}…\n`);
    try {
      const out = await group.run();
      results.push(...out);
    } catch (err) {
      results.push({ scenario: group.titles.join(', '), load: 'crashed', faults: '-', badInputs: '-', lostData: '?', failures: 1, notes: [err instanceof Error ? (err.stack ?? err.message) : String(err)] });
    }
    process.stderr.write(`[prove] ${group.name} took ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  const failures = results.reduce((n, r) => n + r.failures, 0);
  const notes = results.flatMap((r) => r.notes.map((n) => `- ${r.scenario}: ${n}`));
  const output = [
    `npm run prove${long ? ' -- --long' : ''}: ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, Node ${process.version}`,
    '',
    table(results),
    '',
    ...(notes.length ? ['Notes:', ...notes, ''] : []),
    failures === 0 ? 'RESULT: all scenarios passed' : `RESULT: ${failures} failure(s)`,
  ].join('\n');
  process.stdout.write(`${output}\n`);
  if (values.record) record(output, long);
  // Exit now: keep-alive sockets of the clients would hold the process open for seconds more.
  process.exit(failures === 0 ? 0 : 1);
}

/** Replaces the block for this form (short or long) in docs/reliability.md. */
function record(output: string, isLong: boolean) {
  const file = path.resolve(import.meta.dirname, '../../../docs/reliability.md');
  const tag = isLong ? 'long' : 'short';
  const start = `<!-- prove:${tag}:start -->`;
  const end = `<!-- prove:${tag}:end -->`;
  const doc = readFileSync(file, 'utf8');
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < 0) throw new Error(`markers ${start} / ${end} missing in ${file}`);
  writeFileSync(file, `${doc.slice(0, i + start.length)}\n\n\`\`\`text\n${output}\n\`\`\`\n\n${doc.slice(j)}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`prove failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

/**
 * Delivery package build vs `zip -0` on the same files, in one run.
 *
 *   npx tsx bench/package/run.ts [megabytes=300]
 *
 * Builds one package of about `megabytes` of incompressible JPEGs (12 notes, 4 per set, each
 * folder holding its set's 9 images) through the real `package.build` job on SQLite and local
 * storage, sampling this process's RSS every 10 ms, and times `zip -0 -r` on the very same files
 * laid out as the zip's folders (symlinks), alternating the two three times. Prints peak RSS
 * growth (target: under 100 MB, i.e. the zip is streamed, never held in memory), the median
 * throughputs with their ratio (target: at least 0.8), the CPU time each took (all of this
 * process's threads during a build, zip's own through bash's `times`: what a loaded machine
 * stretches), and whether `unzip -t` accepts the package; writes bench/out/package.json. Needs `zip` and `unzip` (Debian: apt-get install -y zip unzip).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { bootstrap } from '../../server/src/bootstrap.js';
import { loadConfig } from '../../server/src/config.js';
import { json, nowIso } from '../../server/src/db/codec.js';
import { packageBuildJob } from '../../server/src/modules/delivery/build.js';
import { createRuntime } from '../../server/src/runtime.js';

const targetMb = Number(process.argv[2] ?? 300);
const SETS = ['A', 'B', 'C'] as const;
const IMAGES_PER_SET = 9;
const NOTES_PER_SET = 4;
const MB = 1024 * 1024;
const ROUNDS = 3;

if (spawnSync('zip', ['-v'], { stdio: 'ignore' }).status !== 0) {
  console.error('zip is not installed (Debian: apt-get install -y zip); it is the baseline of this benchmark');
  process.exit(2);
}

/** One incompressible JPEG of about `bytes`: random pixels at quality 95. */
async function noiseJpeg(bytes: number, seed: number): Promise<Buffer> {
  const side = Math.round(Math.sqrt(bytes / 1.02));
  const raw = Buffer.alloc(side * side * 3);
  let x = seed * 2654435761;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[i] = x & 0xff;
  }
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
}

const dir = mkdtempSync(path.join(tmpdir(), 'cps-bench-package-'));
const runtime = await createRuntime(loadConfig({ NODE_ENV: 'test', DATA_DIR: dir, ADMIN_PASSWORD: 'bench-password-1', LOG_LEVEL: 'warn' }), { worker: false });
const { ctx } = runtime;
try {
  await bootstrap(ctx);
  const admin = await ctx.db.selectFrom('users').select(['id', 'current_workspace_id']).executeTakeFirstOrThrow();
  const ws = admin.current_workspace_id!;
  const now = nowIso(ctx.clock.now());
  const product = await ctx.db
    .insertInto('products')
    .values({ workspace_id: ws, name: '基准测试产品', category: 'bench', source: 'custom', selling_points: json([]), style_tone: null, text_angles: json([]), custom_prompt: null, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const task = await ctx.db
    .insertInto('tasks')
    .values({ workspace_id: ws, product_id: product.id, operator_id: admin.id, theme: '打包基准', text_count: 12, image_count: IMAGES_PER_SET, track: 'ai', status: 'approved', need_product_image: false, overlay_text: true, generation: 1, progress: json(null), created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();

  // Sized so that 12 folders × 9 images add up to the target.
  const perImage = Math.round((targetMb * MB) / (SETS.length * NOTES_PER_SET * IMAGES_PER_SET));
  process.stdout.write(`preparing ${SETS.length * IMAGES_PER_SET} noise JPEGs of ~${(perImage / MB).toFixed(1)} MB… `);
  const files = new Map<string, string>();
  const noteIds: number[] = [];
  let slot = 0;
  for (const strategy of SETS) {
    for (let seq = 1; seq <= IMAGES_PER_SET; seq++) {
      const stored = await ctx.storage.put(await noiseJpeg(perImage, seq * 31 + strategy.charCodeAt(0)), { contentType: 'image/jpeg', extension: 'jpg' });
      files.set(`${strategy}/${seq}`, stored.key);
      await ctx.db
        .insertInto('image_candidates')
        .values({ workspace_id: ws, task_id: task.id, generation: 1, strategy, role: 'main', seq, file_key: stored.key, mime: 'image/jpeg', prompt: '', is_selected: true, is_regen: false, created_at: now })
        .execute();
    }
    for (let n = 0; n < NOTES_PER_SET; n++) {
      const text = await ctx.db
        .insertInto('text_candidates')
        .values({ workspace_id: ws, task_id: task.id, generation: 1, slot: slot++, strategy, angle_label: `角度${n}`, title: `标题 ${strategy}${n}`, content: '正文'.repeat(200), tags: json(['基准']), cover_title: '封面', image_brief: '', source: 'ai', score: json({ title: 20, emotion: 20, selling: 20, keyword: 15, compliance: 5, total: 80 }), score_total: 80, banned_word_status: 'pass', banned_hits: json([]), is_selected: n === 0, verdict: '', summary: '', edited: false, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      noteIds.push(text.id);
    }
  }
  console.log('done');

  // The same files laid out as the package's folders (symlinks), for zip -0.
  const tree = path.join(dir, 'tree');
  const storedPath = (key: string) => path.join(ctx.config.dataDir, 'files', key.slice(0, 2), key);
  let folder = 0;
  for (const strategy of SETS) {
    for (let n = 0; n < NOTES_PER_SET; n++) {
      const name = path.join(tree, `note_${String(++folder).padStart(2, '0')}_${strategy}`);
      mkdirSync(name, { recursive: true });
      for (let seq = 1; seq <= IMAGES_PER_SET; seq++) symlinkSync(storedPath(files.get(`${strategy}/${seq}`)!), path.join(name, `${String(seq).padStart(2, '0')}_main.jpg`));
      writeFileSync(path.join(name, 'note.txt'), `标题 ${strategy}${n}\n\n${'正文'.repeat(200)}\n\n#基准\n`);
    }
  }

  /** One build of a fresh package through the real job; RSS sampled every 10 ms against the level before it. */
  const build = async () => {
    const pkg = await ctx.db
      .insertInto('delivery_packages')
      .values({ workspace_id: ws, task_id: task.id, created_by: admin.id, status: 'pending', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await ctx.db.insertInto('package_notes').values(noteIds.map((text_candidate_id, position) => ({ workspace_id: ws, package_id: pkg.id, text_candidate_id, position }))).execute();
    (globalThis as { gc?: () => void }).gc?.();
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 10);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await packageBuildJob.run(ctx, pkg.id, { attempt: 1, signal: new AbortController().signal });
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    const built = await ctx.db.selectFrom('delivery_packages').selectAll().where('id', '=', pkg.id).executeTakeFirstOrThrow();
    if (built.status !== 'ready') throw new Error(`package build ended ${built.status}: ${built.error}`);
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000, bytes: Number(built.size_bytes), key: built.file_key!, growth: peak - baseline };
  };
  const out = path.join(dir, 'baseline.zip');
  const zip0 = () => {
    rmSync(out, { force: true });
    const started = performance.now();
    // bash's `times` prints the CPU time (user, system) of the shell and then of its children: zip's.
    const times = execFileSync('bash', ['-c', 'zip -0 -r -q "$0" . && times', out], { cwd: tree, encoding: 'utf8' });
    const ms = performance.now() - started;
    const [user, system] = [...times.trim().split('\n').at(-1)!.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => (Number(m[1]) * 60 + Number(m[2])) * 1000);
    return { ms, cpuMs: user! + system!, bytes: statSync(out).size };
  };

  // Alternating rounds, so both see the same moments of a shared machine; medians are compared.
  const ours: Awaited<ReturnType<typeof build>>[] = [];
  const theirs: ReturnType<typeof zip0>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ours.push(await build());
    theirs.push(zip0());
    const [a, b] = [ours.at(-1)!, theirs.at(-1)!];
    console.log(`round ${round + 1}: package ${Math.round(a.ms)} ms (CPU ${Math.round(a.cpuMs)} ms), zip -0 ${Math.round(b.ms)} ms (CPU ${Math.round(b.cpuMs)} ms)`);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const buildMs = median(ours.map((r) => r.ms));
  const zipMs = median(theirs.map((r) => r.ms));
  const buildCpuMs = median(ours.map((r) => r.cpuMs));
  const zipCpuMs = median(theirs.map((r) => r.cpuMs));
  const zipBytes = ours[0]!.bytes;
  const baselineBytes = theirs[0]!.bytes;
  const growth = Math.max(...ours.map((r) => r.growth));
  const baseline = process.memoryUsage.rss();

  // The archive must be valid for an independent reader: unzip tests every entry's CRC.
  const check = spawnSync('unzip', ['-tq', storedPath(ours[0]!.key)], { encoding: 'utf8' });
  const valid = check.status === 0;
  console.log(`unzip -t on the package: ${valid ? 'OK' : `FAILED\n${check.stdout}${check.stderr}`}`);

  const result = {
    package_mb: +(zipBytes / MB).toFixed(1),
    images: SETS.length * NOTES_PER_SET * IMAGES_PER_SET,
    build_ms: Math.round(buildMs),
    build_mb_per_s: +((zipBytes / MB) / (buildMs / 1000)).toFixed(1),
    zip0_ms: Math.round(zipMs),
    zip0_mb_per_s: +((baselineBytes / MB) / (zipMs / 1000)).toFixed(1),
    throughput_ratio_vs_zip0: +((zipBytes / buildMs) / (baselineBytes / zipMs)).toFixed(2),
    build_cpu_ms: Math.round(buildCpuMs),
    zip0_cpu_ms: Math.round(zipCpuMs),
    loadavg: loadavg(),
    rounds: ROUNDS,
    rss_baseline_mb: +(baseline / MB).toFixed(1),
    rss_peak_growth_mb: +(growth / MB).toFixed(1),
    unzip_test: valid ? 'ok' : 'failed',
    rss_target_mb: 100,
  };
  console.log(`package: ${result.package_mb} MB (${result.images} images) in ${result.build_ms} ms = ${result.build_mb_per_s} MB/s`);
  console.log(`zip -0:  ${(baselineBytes / MB).toFixed(1)} MB in ${result.zip0_ms} ms = ${result.zip0_mb_per_s} MB/s`);
  console.log(`throughput ratio (package / zip -0): ${result.throughput_ratio_vs_zip0}`);
  console.log(`CPU time (user + system, every thread): package ${result.build_cpu_ms} ms, zip -0 ${result.zip0_cpu_ms} ms (medians); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`peak RSS growth during the build: ${result.rss_peak_growth_mb} MB (target < 100 MB) ${result.rss_peak_growth_mb < 100 ? 'OK' : 'OVER'}`);
  if (!valid) process.exitCode = 1;
  const outDir = path.join(import.meta.dirname, '..', 'out');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}

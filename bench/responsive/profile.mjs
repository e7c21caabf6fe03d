// Preloaded into the server by `PROFILE_DIR=<dir> npx tsx bench/responsive/run.ts`: a CPU profile
// of the main thread (the event loop that answers the API) and every garbage collection with the
// heap and external memory after it, written to <dir> when the process exits.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const dir = process.env.PROFILE_DIR;
  const collections = [];
  const KINDS = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weak callbacks' };
  new PerformanceObserver((list) => {
    const { heapUsed, external } = process.memoryUsage();
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
    for (const e of list.getEntries()) collections.push({ at_ms: e.startTime, ms: e.duration, kind: KINDS[e.detail.kind], flags: e.detail.flags, heapUsed, external, spaces });
  }).observe({ entryTypes: ['gc'] });
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  process.on('exit', () => {
    writeFileSync(path.join(dir, `gc-${process.pid}.json`), JSON.stringify(collections));
    // An in-thread session answers synchronously, so this runs before the process ends.
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(path.join(dir, `main-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

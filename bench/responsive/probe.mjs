// The user of bench/responsive, in a process of its own: one user's `GET /tasks`, one request at
// a time, 20 ms apart. A user's browser runs on another machine; in the bench's own process the
// probe shared an event loop and a heap with the harness (the server's code under tsx, the
// server's log piped in), whose garbage collections (up to 24 ms, 27 in one busy phase) and
// loop delays (up to 37 ms) were counted as the service's latency. Plain JavaScript with nothing
// but Node's own modules, so its heap stays small; it reports its own loop delay and collections
// with each phase, so a run shows what the client itself added.
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

// One kept-alive connection, as a browser holds one to the API.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let count = 0;
let collections = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push({ start: entry.startTime, ms: entry.duration });
}).observe({ entryTypes: ['gc'] });

/** One GET: its status and body, timed from the request's start to the body's last byte. */
function get(url, headers) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Probes until the phase is over: `seconds` have passed, or every one of `taskIds` has left
 * pending and generating on the page just read (the probe itself tells when the tasks have
 * settled, so the bench adds no requests of its own to the load it measures).
 */
async function phase({ base, token, seconds, taskIds }) {
  const until = seconds === undefined ? Infinity : performance.now() + seconds * 1000;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  collections = [];
  const probes = [];
  for (;;) {
    const id = `probe-${++count}`;
    const at = performance.now();
    const res = await get(`${base}/api/v1/tasks?page_size=20`, { authorization: `Bearer ${token}`, 'x-request-id': id });
    // `sent`: the wall clock's time, to set beside the service's log (milliseconds since the epoch).
    probes.push({ id, at, sent: performance.timeOrigin + at, ms: performance.now() - at });
    if (res.status !== 200) throw new Error(`GET /tasks answered ${res.status}`);
    if (taskIds) {
      const items = JSON.parse(res.body.toString('utf8')).data.items;
      if (taskIds.every((taskId) => !['pending', 'generating'].includes(items.find((t) => t.id === taskId)?.status ?? 'pending'))) break;
    } else if (performance.now() > until) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  delay.disable();
  return { probes, loopDelayMaxMs: delay.max / 1e6, collections };
}

process.on('message', (message) => {
  phase(message).then(
    (result) => process.send({ result }),
    (err) => process.send({ error: String(err?.stack ?? err) }),
  );
});
process.on('disconnect', () => process.exit(0));

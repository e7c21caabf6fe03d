import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { parentPort, Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { loadConfig } from './config.js';
import { closeImageThreads } from './images/threads.js';
import { addThreadMetrics, jobThreadMetrics, type MetricsJson } from './ops/metrics.js';
import { createRuntime } from './runtime.js';

/**
 * npm start's jobs run in a thread of their own. The job runner's JavaScript (a generation's
 * steps, its database writes, the notes' checks, parsing the providers' streams) then no longer
 * shares the event loop that answers the API: a request waits for none of it
 * (docs/performance.md, "Responsive all-in-one process"). The thread is the worker role of a
 * separate process in all but the process: its own runtime and database connection, the same
 * durable queue; task events and job wake-ups cross between the threads on a BroadcastChannel
 * at once, and its figures are added to the process's `/metrics`.
 */
export interface JobThread {
  /** Stops taking jobs, lets the running ones finish (as the worker role does on SIGTERM), and ends the thread. */
  close(): Promise<void>;
}

type ToThread = { type: 'metrics'; id: number } | { type: 'close' };
type FromThread = { type: 'ready' } | { type: 'metrics'; id: number; metrics: MetricsJson };

/** Names the channels between the threads of one process run (createRuntime's `threadChannel`). */
export const newThreadChannel = () => `cps-${randomUUID()}`;

/**
 * Starts the job thread on `channel`; its worker takes jobs once the thread has loaded the
 * server (seconds from sources on a busy machine). A thread that fails or ends unasked is
 * reported to `onCrash` (the process ends: an API whose jobs no longer run would fail silently).
 */
export function startJobThread(channel: string, log: Logger, onCrash: (err: Error) => void): JobThread {
  const thread = new Worker(new URL('./job-thread.mjs', import.meta.url), { workerData: { channel } });
  let closing = false;
  const asked = new Map<number, (metrics: MetricsJson) => void>();
  let nextId = 0;
  let ready = false;
  let removeMetrics = () => {};
  const askMetrics = () =>
    new Promise<MetricsJson>((resolve) => {
      const id = ++nextId;
      asked.set(id, (metrics) => {
        asked.delete(id);
        resolve(metrics);
      });
      send({ type: 'metrics', id });
    });
  thread.on('message', (message: FromThread) => {
    if (message.type === 'ready' && !closing) {
      ready = true;
      removeMetrics = addThreadMetrics(askMetrics);
    }
    if (message.type === 'metrics') asked.get(message.id)?.(message.metrics);
  });
  thread.on('error', (err) => {
    log.fatal({ err }, 'the job thread failed');
    onCrash(err);
  });
  thread.on('exit', (code) => {
    if (!closing) onCrash(new Error(`the job thread ended (exit code ${code})`));
  });
  const send = (message: ToThread) => thread.postMessage(message);
  return {
    async close() {
      closing = true;
      removeMetrics();
      // A thread still loading (seconds from sources on a busy machine) has no job to let finish:
      // a shutdown does not wait for it to load first, which could outlast its deadline. A job it
      // claimed in the instant before saying ready goes back to the queue when its lease lapses.
      if (!ready) {
        await thread.terminate();
        return;
      }
      const exited = once(thread, 'exit');
      send({ type: 'close' });
      await exited;
    },
  };
}

/** The thread's side (job-thread.mjs): the worker role's runtime, answering the main thread's messages. */
export async function runJobThread({ channel }: { channel: string }): Promise<void> {
  const port = parentPort!;
  const runtime = await createRuntime(loadConfig(), { worker: true, migrate: false, threadChannel: channel, thread: 'jobs' });
  const reply = (message: FromThread) => port.postMessage(message);
  port.on('message', (message: ToThread) => {
    if (message.type === 'metrics') {
      void jobThreadMetrics().then((metrics) => reply({ type: 'metrics', id: message.id, metrics }));
      return;
    }
    void (async () => {
      await runtime.close();
      await closeImageThreads();
      // The thread ends here whatever handle a library left open; its last log lines are written first.
      runtime.ctx.log.flush(() => process.exit(0));
    })();
  });
  reply({ type: 'ready' });
}

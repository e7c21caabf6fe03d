// Entry of npm start's job thread (job-thread.ts): lowered below the event loop, then the job runner.
import { workerData } from 'node:worker_threads';
import { loadServerModule, lowerThisThread } from './threads/background.mjs';

lowerThisThread();
const { runJobThread } = await loadServerModule(new URL('./job-thread.js', import.meta.url).href);
await runJobThread(workerData);

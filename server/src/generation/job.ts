import type { JobHandler } from '../jobs/types.js';
import { failTaskGeneration, runTaskGeneration } from './run.js';

/** The `task.generate` job: the queue carries the task id only. */
export const taskGenerateJob: JobHandler = {
  run: (ctx, taskId, job) => runTaskGeneration(ctx, taskId, job.signal),
  onFailed: async (ctx, taskId, reason) => {
    await failTaskGeneration(ctx, taskId, `generation stopped: ${reason}`);
  },
};

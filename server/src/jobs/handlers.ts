import { taskGenerateJob } from '../generation/job.js';
import { packageBuildJob } from '../modules/delivery/build.js';
import { fissionGenerateJob, fissionRetryImagesJob } from '../modules/fission/pipeline.js';
import type { JobHandlers } from './types.js';

/**
 * What worker processes run, per job kind: each owning module adds one line here. A kind with
 * no entry still fails its jobs visibly (job row `failed`, error logged), never silently.
 */
export const jobHandlers: JobHandlers = {
  'package.build': packageBuildJob,
  'task.generate': taskGenerateJob,
  'fission.generate': fissionGenerateJob,
  'fission.retry-images': fissionRetryImagesJob,
};

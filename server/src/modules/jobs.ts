import { jobRegistry } from '../jobs/types.js';
import { packageBuildJob } from './delivery/build.js';
import { batchTaskJob } from './batches/jobs.js';
import { fissionBulkJob, fissionGenerateJob, fissionRetryImagesJob } from './fission/pipeline.js';
import { taskImagesJob } from './tasks/images.js';
import { taskGenerateJob } from './tasks/pipeline.js';
import { webhookDeliverJob } from './webhooks/delivery.js';

/** Every background job kind, each declared once by the module that owns its records. */
export const jobHandlers = jobRegistry([taskGenerateJob, packageBuildJob, fissionGenerateJob, fissionRetryImagesJob, webhookDeliverJob, taskImagesJob, batchTaskJob, fissionBulkJob]);

/**
 * Jobs carry only an id (the contract: creating a task only places the task id on a work queue;
 * the package build job receives only the package id). Everything else is read from the database.
 */
export type JobKind = 'task.generate' | 'package.build' | 'fission.generate' | 'fission.retry-images';

export interface JobQueue {
  enqueue(kind: JobKind, refId: number): Promise<void>;
}

import type { FileSweepOptions } from '../../config.js';
import type { AppContext } from '../../context.js';
import { claimPeriodicRun } from '../../jobs/repository.js';
import { sweepUnusedFiles } from './service.js';

const CHORE = 'unused-file-sweep';

/**
 * Runs sweepUnusedFiles about once per interval for the whole deployment: every worker process
 * ticks (at start, then every interval), and the one that claims the due run in periodic_runs
 * sweeps. A sweeper that dies mid-pass is simply followed by the next run.
 */
export class UnusedFileSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly ctx: AppContext,
    private readonly options: FileSweepOptions,
  ) {}

  start(): void {
    const tick = () => {
      this.running ??= this.runIfDue()
        .catch((err: unknown) => this.ctx.log.error({ err }, 'unused-file sweep failed'))
        .finally(() => (this.running = undefined));
    };
    this.timer = setInterval(tick, this.options.intervalMs);
    this.timer.unref();
    tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    await this.running;
  }

  private async runIfDue(): Promise<void> {
    const now = Date.now();
    const { intervalMs } = this.options;
    // A run due within a tenth of an interval counts as due, so timer jitter never skips one.
    const dueBy = new Date(now + intervalMs / 10).toISOString();
    if (!(await claimPeriodicRun(this.ctx.db, CHORE, dueBy, new Date(now + intervalMs).toISOString()))) return;
    const { examined, deleted } = await sweepUnusedFiles(this.ctx, this.options.graceMs, this.stopping.signal);
    this.ctx.log.info({ examined, deleted: deleted.length, ms: Date.now() - now }, 'unused-file sweep done');
  }
}

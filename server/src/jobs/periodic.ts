import type { AppContext } from '../context.js';
import type { WorkerChore } from './index.js';

/**
 * A chore a worker process runs every `intervalMs` (post times, webhook outbox, batches): one pass
 * at a time (a slow pass is not overlapped by the next tick), its failure logged and the next
 * tick tried, the timer never keeping the process alive, stop waiting for the pass under way.
 */
export abstract class PeriodicChore implements WorkerChore {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    protected readonly ctx: AppContext,
    private readonly what: string,
    private readonly intervalMs: number,
  ) {}

  protected abstract pass(): Promise<unknown>;

  start(): void {
    const tick = () => {
      this.running ??= this.pass()
        .then(() => undefined)
        .catch((err: unknown) => this.ctx.log.error({ err }, `${this.what} failed`))
        .finally(() => (this.running = undefined));
    };
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
    tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

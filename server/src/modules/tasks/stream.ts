import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { TaskStatus } from '../../db/schema.js';
import { followTask } from '../../events/follow.js';
import type { StoredTaskEvent } from '../../events/types.js';
import { sseConnections } from '../../ops/metrics.js';

/** A client this far behind is cut off; it reconnects with Last-Event-ID and replays. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const RUNNING: readonly TaskStatus[] = ['pending', 'generating'];
/**
 * A following stream (`follow=true`) ends after this long; the client reconnects with a fresh
 * ticket, which checks again that the user may still see the task.
 */
const FOLLOW_MAX_MS = 15 * 60_000;

// Every stream of a task gets the same event object: encode it once, not once per stream.
const frames = new WeakMap<StoredTaskEvent, Buffer>();

function frame(event: StoredTaskEvent): Buffer {
  let bytes = frames.get(event);
  if (!bytes) {
    // JSON.stringify escapes line breaks, so the data always fits on one `data:` line.
    bytes = Buffer.from(`id: ${event.seq}\nevent: ${event.name}\ndata: ${JSON.stringify(event.data)}\n\n`);
    frames.set(event, bytes);
  }
  return bytes;
}

/**
 * The open event streams of one server, so shutdown can end them (a stream never ends by
 * itself while a generation runs, and the server would otherwise wait for it).
 */
export class EventStreams {
  private readonly open = new Set<() => void>();

  constructor(private readonly heartbeatMs: number) {}

  get size(): number {
    return this.open.size;
  }

  closeAll(): void {
    for (const end of [...this.open]) end();
  }

  /**
   * Streams the task's events after `afterSeq`: stored ones, then live ones, until `done`; a
   * task that was settled before the replay (and not restarted in it) closes right after it.
   * With `follow` the stream outlives `done` and settled tasks: the open task page keeps
   * receiving what happens next (review decisions, a regenerate, package progress).
   *
   * The stream lives only as long as the session that opened it (`sessionCurrent`: removal from
   * the workspace, a role or password change end it). That is asked before events are written
   * (one question at a time: events arriving meanwhile wait for its answer and go out with the
   * next batch) and at every heartbeat, so an idle stream ends too.
   */
  start(
    ctx: AppContext,
    request: FastifyRequest,
    reply: FastifyReply,
    task: { id: number; status: TaskStatus },
    afterSeq: number,
    follow: boolean,
    sessionCurrent: () => Promise<boolean>,
  ) {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');

    let ended = false;
    // Does the replayed history end inside a running generation (a regenerate after settling)?
    let running = false;
    const settledAtStart = !RUNNING.includes(task.status);

    const end = () => {
      if (ended) return;
      ended = true;
      sseConnections.dec();
      follower.close();
      clearInterval(heartbeat);
      clearTimeout(followLimit);
      this.open.delete(end);
      res.end();
    };

    const write = (event: StoredTaskEvent) => {
      if (event.name === 'status') {
        const status = (event.data as { status?: TaskStatus } | null)?.status;
        if (status) running = RUNNING.includes(status);
      }
      res.write(frame(event));
      if (event.name === 'done') {
        running = false;
        if (!follow) end();
      } else if (res.writableLength > MAX_BUFFERED_BYTES) {
        request.log.warn({ taskId: task.id }, 'event stream client too slow; closing its stream');
        end();
      }
    };
    let waiting: StoredTaskEvent[] = [];
    let asking = false;
    // Events go out only after the session was found current; `onReplayed` waits for them.
    let drained: Promise<void> = Promise.resolve();
    const deliver = async () => {
      asking = true;
      while (waiting.length > 0 && !ended) {
        const batch = waiting;
        waiting = [];
        if (!(await sessionCurrent().catch(() => false))) return end();
        for (const event of batch) if (!ended) write(event);
      }
      asking = false;
    };

    const follower = followTask(ctx.events, task.id, afterSeq, {
      onEvent: (event) => {
        if (ended) return;
        waiting.push(event);
        if (!asking) drained = deliver();
      },
      onReplayed: () => {
        void drained.then(() => {
          if (settledAtStart && !running && !follow) end();
        });
      },
      onError: (err) => {
        request.log.error({ err, taskId: task.id }, 'event stream failed');
        end();
      },
    });

    sseConnections.inc();
    const heartbeat = setInterval(() => {
      void sessionCurrent()
        .catch(() => false)
        .then((current) => (current ? res.write(': keep-alive\n\n') : end()));
    }, this.heartbeatMs);
    heartbeat.unref();
    const followLimit = follow ? setTimeout(end, FOLLOW_MAX_MS) : undefined;
    followLimit?.unref();
    this.open.add(end);
    // The client went away (or the socket broke): drop the subscription at once.
    res.on('close', end);
  }
}

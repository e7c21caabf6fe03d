import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EventTransport } from './bus.js';
import type { StoredTaskEvent } from './types.js';

const CONNECT_TIMEOUT_MS = 10_000;

interface Message {
  /** The publishing process: it has already delivered its own events locally. */
  o: string;
  e: StoredTaskEvent[];
}

/**
 * Redis pub/sub between processes. One channel for all tasks of a deployment (named with the
 * deployment's Redis prefix, so deployments sharing a Redis never see each other's events): each process subscribes once at
 * start, so a new stream is live the moment it registers its listener, with no round trip to
 * Redis between its subscription and its replay. Lost messages (a reconnect) cost nothing but
 * latency: followers read gaps from the database.
 */
export class RedisEventTransport implements EventTransport {
  private readonly origin = randomUUID();
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly channel: string;

  constructor(url: string, prefix: string, private readonly log: Logger) {
    this.channel = `${prefix}:task-events`;
    const options = { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: null };
    this.pub = new Redis(url, { ...options, maxRetriesPerRequest: 3 });
    this.sub = new Redis(url, options);
    for (const client of [this.pub, this.sub]) {
      client.on('error', (err) => this.log.warn({ err: { message: err.message } }, 'task event transport: redis error'));
    }
  }

  async start(deliver: (events: StoredTaskEvent[]) => void): Promise<void> {
    await Promise.all([this.pub.connect(), this.sub.connect()]);
    this.sub.on('message', (_channel: string, raw: string) => {
      let message: Message;
      try {
        message = JSON.parse(raw) as Message;
      } catch {
        this.log.warn('task event transport: unreadable message dropped');
        return;
      }
      if (message.o !== this.origin && Array.isArray(message.e)) deliver(message.e);
    });
    await this.sub.subscribe(this.channel);
  }

  async publish(events: StoredTaskEvent[]): Promise<void> {
    await this.pub.publish(this.channel, JSON.stringify({ o: this.origin, e: events } satisfies Message));
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
  }
}

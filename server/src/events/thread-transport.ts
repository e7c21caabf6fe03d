import { BroadcastChannel } from 'node:worker_threads';
import type { EventTransport } from './bus.js';
import type { StoredTaskEvent } from './types.js';

/**
 * Task events between the threads of one process (the API's event loop and the job thread of
 * `npm start`): a BroadcastChannel named for this process's run, so the streams the API serves
 * get a job's events the moment they are committed, as the Redis transport does between
 * processes. A channel delivers only to the other threads' instances, never back to the sender.
 */
export class ThreadEventTransport implements EventTransport {
  private readonly channel: BroadcastChannel;

  constructor(name: string) {
    this.channel = new BroadcastChannel(`${name}:task-events`);
    this.channel.unref();
  }

  async start(deliver: (events: StoredTaskEvent[]) => void): Promise<void> {
    this.channel.onmessage = (message) => deliver((message as { data: StoredTaskEvent[] }).data);
  }

  async publish(events: StoredTaskEvent[]): Promise<void> {
    this.channel.postMessage(events);
  }

  async close(): Promise<void> {
    this.channel.close();
  }
}

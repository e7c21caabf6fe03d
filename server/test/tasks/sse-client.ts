import http from 'node:http';

export interface SseEvent {
  id: number;
  event: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  comments: string[];
  /** Error body when the status is not 200. */
  body: any;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  waitFor(predicate: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

/** A minimal EventSource over node:http, so a test sees exactly the bytes the server sends. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const events: SseEvent[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      let raw = '';
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) {
          raw += chunk;
          return;
        }
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const i = line.indexOf(':');
              fields[line.slice(0, i)] = line.slice(i + 1).replace(/^ /, '');
            }
          }
          if (fields.event) events.push({ id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data ?? 'null') });
        }
        for (const w of [...waiters]) w();
      });
      res.on('end', () => {
        endedResolve();
        for (const w of [...waiters]) w();
      });
      res.on('error', () => endedResolve());
      res.on('close', () => endedResolve());
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        body: undefined,
        ended,
        waitFor(predicate, timeoutMs = 15_000) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (predicate(events)) {
                waiters.delete(check);
                clearTimeout(timer);
                ok(events);
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`timed out waiting for events; got ${JSON.stringify(events.map((e) => [e.id, e.event]))}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        close() {
          req.destroy();
        },
      };
      if (res.statusCode !== 200) {
        res.on('end', () => {
          try {
            stream.body = JSON.parse(raw);
          } catch {
            stream.body = raw;
          }
          resolve(stream);
        });
      } else resolve(stream);
    });
    req.on('error', reject);
  });
}

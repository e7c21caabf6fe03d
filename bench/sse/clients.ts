/**
 * The client side of bench/sse/run.ts, in its own process so its sockets and buffers do not
 * count in the server's RSS. Reads stream URLs (one JSON array on stdin), opens them all, then
 * reports on stdout: `open <n>` once every stream answered, and for each round of events one
 * line `latencies <json>` (ms from the event's sent_at to its arrival, per stream).
 */
import http from 'node:http';

const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
const urls = JSON.parse(Buffer.concat(chunks).toString()) as string[];
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const now = () => performance.timeOrigin + performance.now();

let opened = 0;
const rounds = new Map<number, number[]>();
for (const url of urls) {
  http.get(url, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      process.stdout.write(`error status ${res.statusCode}\n`);
      process.exit(1);
    }
    if (++opened === urls.length) process.stdout.write(`open ${opened}\n`);
    res.setEncoding('utf8');
    let buffer = '';
    res.on('data', (chunk: string) => {
      const at = now();
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!data) continue;
        const { round, sent_at: sentAt } = JSON.parse(data) as { round: number; sent_at: number };
        const list = rounds.get(round) ?? [];
        list.push(at - sentAt);
        rounds.set(round, list);
        if (list.length === urls.length) process.stdout.write(`latencies ${JSON.stringify(list)}\n`);
      }
    });
  }).on('error', (err) => {
    process.stdout.write(`error ${err.message}\n`);
    process.exit(1);
  });
}

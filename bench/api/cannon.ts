import { execFile } from 'node:child_process';
import path from 'node:path';

const autocannon = path.resolve(import.meta.dirname, '..', '..', 'node_modules', 'autocannon', 'autocannon.js');

export interface CannonResult {
  rps: number;
  p99: number;
  p50: number;
  non2xx: number;
  errors: number;
  /** CPU time of this (server) process per request: unlike throughput, barely moved by other load on the machine. */
  cpu_us_per_request: number;
}

/**
 * autocannon's CLI in its own process against `url`, its JSON report read back. Asynchronous:
 * the servers measured live in this process and must keep serving while it runs.
 */
export function cannon(url: string, opts: { connections: number; seconds: number; headers?: string[] }): Promise<CannonResult> {
  const cpuBefore = process.cpuUsage();
  const args = [autocannon, '-c', String(opts.connections), '-d', String(opts.seconds), '-j', ...(opts.headers ?? []).flatMap((h) => ['-H', h]), url];
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      if (err) return reject(err);
      const cpu = process.cpuUsage(cpuBefore);
      const r = JSON.parse(stdout);
      resolve({
        rps: r.requests.average,
        p99: r.latency.p99,
        p50: r.latency.p50,
        non2xx: r.non2xx,
        errors: r.errors,
        cpu_us_per_request: Math.round((cpu.user + cpu.system) / Math.max(1, r.requests.total)),
      });
    }),
  );
}

import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, lazyChildLogger } from '../../src/logging.js';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger(level, destination), lines };
}

describe('the request logger (lazyChildLogger)', () => {
  it('makes no pino child for a request that writes nothing at an enabled level', () => {
    const { logger, lines } = capture('warn');
    const child = vi.spyOn(logger, 'child');
    const log = lazyChildLogger(logger, { reqId: 'r-1' }, {});
    log.info({ a: 1 }, 'not at warn');
    log.debug('nor this');
    expect(log.level).toBe('warn');
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
  });

  it('writes enabled lines with the request id bound, redacted as every line, through one child', async () => {
    const { logger, lines } = capture('info');
    const child = vi.spyOn(logger, 'child');
    const log = lazyChildLogger(logger, { reqId: 'r-2' }, {});
    log.info({ token: 'secret-token' }, 'first');
    log.warn('second');
    log.child({ taskId: 7 }).error('third');
    await new Promise((r) => setTimeout(r, 50));
    // One request child for every line (pino's children inherit the spied method: the second call is its own child's).
    expect(child.mock.calls.map((call) => call[0])).toEqual([{ reqId: 'r-2' }, { taskId: 7 }]);
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
      ['first', 'r-2'],
      ['second', 'r-2'],
      ['third', 'r-2'],
    ]);
    expect(lines[0]!.token).toBe('[redacted]');
    expect(lines[2]!.taskId).toBe(7);
  });

  it('follows a level set on it, and makes a route with its own level a child at once', () => {
    const { logger } = capture('warn');
    const log = lazyChildLogger(logger, { reqId: 'r-3' }, {});
    log.level = 'debug';
    expect(log.isLevelEnabled('debug')).toBe(true);
    expect(logger.level).toBe('warn');
    const own = lazyChildLogger(logger, { reqId: 'r-4' }, { level: 'trace' });
    expect(own.level).toBe('trace');
  });
});

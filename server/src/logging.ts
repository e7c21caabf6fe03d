import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Secrets never reach a log line: headers, passwords, provider keys, one-time tickets and
 * tokens are censored wherever they appear in a logged object (two levels deep covers request
 * bodies and query strings as Fastify logs them).
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.current_password',
  '*.new_password',
  '*.api_key',
  '*.apiKey',
  '*.token',
  '*.ticket',
  '*.*.password',
  '*.*.api_key',
  '*.*.token',
  '*.*.ticket',
  'password',
  'api_key',
  'token',
  'ticket',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Fastify logs req.url; tickets and download tokens travel in query strings, so mask them.
      serializers: {
        req: (req: { method: string; url: string; id: string }) => ({
          method: req.method,
          url: maskQuerySecrets(req.url),
          id: req.id,
        }),
      },
    },
    // Written asynchronously: a synchronous write to a slow pipe or terminal stalls the event
    // loop (and with it every request) until the reader catches up. What a crash can lose is the
    // last unwritten lines only.
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** Query parameters that carry a secret: SSE tickets, download tokens, file link signatures. */
const SECRET_PARAMS = new Set(['ticket', 'token', 'sig']);

/**
 * The URL with the value of every secret parameter replaced, the parameter named as the
 * server reads it: decoded (`?%74oken=` is `token` to the query parser, issue 28 finding 8).
 * A name that does not decode is masked too: what the parser makes of it is not ours to guess.
 */
export function maskQuerySecrets(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, eq).replaceAll('+', ' ')).trim().toLowerCase();
      } catch {
        name = 'ticket';
      }
      return SECRET_PARAMS.has(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * Fastify's `childLoggerFactory`: a request's logger that becomes pino's child (with the
 * request id bound) only when a line is written at an enabled level. Fastify makes a child for
 * every request, and pino's child runs the redaction over its bindings each time: a cost paid by
 * every request of a service that logs at `warn`, where most requests never write a line.
 */
export function lazyChildLogger(parent: Logger, bindings: Record<string, unknown>, opts: pino.ChildLoggerOptions): Logger {
  // A route's own level or serializers make a logger unlike its parent: made at once.
  if (opts.level !== undefined || opts.serializers !== undefined) return parent.child(bindings, opts);
  let real: Logger | undefined;
  const child = () => (real ??= parent.child(bindings, opts));
  const levelOf = () => (real ?? parent).level;
  const logger: Record<string, unknown> = {
    child: (more: Record<string, unknown>, moreOpts?: pino.ChildLoggerOptions) => child().child(more, moreOpts),
    isLevelEnabled: (level: string) => (real ?? parent).isLevelEnabled(level),
    silent: () => {},
  };
  for (const level of LEVELS) {
    logger[level] = (...args: unknown[]) => {
      if (real === undefined && !parent.isLevelEnabled(level)) return;
      (child()[level] as (...a: unknown[]) => void)(...args);
    };
  }
  Object.defineProperty(logger, 'level', { get: levelOf, set: (level: string) => void (child().level = level), enumerable: true });
  return logger as unknown as Logger;
}

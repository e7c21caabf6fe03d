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

export function maskQuerySecrets(url: string): string {
  return url.replace(/([?&](?:ticket|token|sig)=)[^&]*/gi, '$1[redacted]');
}

// pino JSON logs. Secrets are redacted twice: by path (headers, key fields) and by value on the
// finished line, after every serializer ran — so a key inside an error message, a request URL
// Fastify logs, or a nested field never reaches the output.
import pino, { type Logger } from 'pino';
import { redactText } from './redact-secrets.js';

/** A destination that redacts each finished JSON line before passing it on. */
function redactingDestination(target: pino.DestinationStream): pino.DestinationStream {
  return { write: (line: string) => target.write(redactText(line)) };
}

export function createLogger(input: { level: string; role: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: input.level,
      base: { role: input.role, pid: process.pid },
      redact: {
        paths: ['headers.authorization', 'headers["x-api-key"]', 'req.headers.authorization', '*.apiKey', '*.ANTHROPIC_API_KEY', 'apiKey'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    redactingDestination(input.destination ?? pino.destination({ dest: 1, sync: true })),
  );
}

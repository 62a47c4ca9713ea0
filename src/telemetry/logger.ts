// pino JSON logs. Secrets are redacted by path here and by value in redact-secrets.ts.
import pino, { type Logger } from 'pino';

export function createLogger(input: { level: string; role: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: input.level,
      base: { role: input.role, pid: process.pid },
      redact: {
        paths: ['headers.authorization', 'headers["x-api-key"]', '*.apiKey', '*.ANTHROPIC_API_KEY', 'apiKey'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    input.destination,
  );
}

// The structured service logger (pino). Secrets never reach it: callers log codes and ids only.
import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(options: {
  level?: string;
  name: string;
  destination?: NodeJS.WritableStream;
}): Logger {
  const level = options.level ?? process.env.AMBIT_LOG_LEVEL ?? 'info';
  return pino(
    {
      name: options.name,
      level,
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    options.destination ?? pino.destination(2),
  );
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

// The structured service logger (pino). Secrets never reach it: callers log codes and ids only, and errors are
// reduced to what they are (serializeError), whatever they carry.
import pino, { type Logger } from 'pino';

export type { Logger };

/** The levels pino knows, quietest first (`silent` logs nothing): what AMBIT_LOG_LEVEL may name. */
export const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(text: string): text is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

/** The CLI resolves the level (AMBIT_LOG_LEVEL, checked first: pino throws on an unknown one). */
export function createLogger(options: {
  level?: LogLevel;
  name: string;
  destination?: NodeJS.WritableStream;
}): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization'],
        censor: '[redacted]',
      },
      serializers: { err: serializeError },
    },
    options.destination ?? pino.destination(2),
  );
}

/**
 * An error as its type, code, message and stack only. pino's default serializer also copies every enumerable
 * property and the causes' messages, and foreign errors (driver, HTTP client, URL parser) keep request headers,
 * connection parameters or the input they refused there; the unexpected errors logged as `err` are foreign ones.
 */
function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: error.message,
    stack: error.stack,
  };
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

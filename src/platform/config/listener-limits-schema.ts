// `server.request_timeout` and `server.max_connections`, which the relay and the verifier read alike.
import { z } from 'zod';
import { durationMs } from './duration.ts';

export function requestTimeoutSchema() {
  return durationMs({ min: 1, max: 3_600_000 })
    .default(30_000)
    .describe('Requests running longer answer 504 (at most 1h).');
}

/** `more`: what a service adds to the description (the relay: how `--workers` shares the limit). */
export function maxConnectionsSchema(more = '') {
  return z
    .number()
    .int()
    .positive()
    .max(1_000_000)
    .default(1024)
    .describe(
      'Client connections the listener of `server.bind` holds open at once; it closes further ones as they arrive (the admin listener allows 64 of its own).' +
        more,
    );
}

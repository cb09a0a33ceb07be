// The verifier's `state` block: where stored evaluations and idempotency records live, and their bounds.
import { z } from 'zod';
import { durationMs } from '../../platform/config/duration.ts';
import { envVarName } from '../../platform/config/env-var-name.ts';

// The memory store's ceilings: far past what one process holds, so a value over them is a typo (a digit too many).
const MAX_MEMORY_RECORDS = 10_000_000;
const MAX_MEMORY_BYTES = 64 * 1024 * 1024 * 1024;

export const state = z.strictObject({
  storage: z.enum(['memory', 'postgresql']).default('memory'),
  evaluation_retention: durationMs({ min: 1000, max: 86_400_000 })
    .default(900_000)
    .describe('How long a stored evaluation can be rendered or issued from.'),
  max_memory_evaluations: z
    .number()
    .int()
    .min(1)
    .max(MAX_MEMORY_RECORDS)
    .default(100_000)
    .describe('Memory store: oldest dropped past this.'),
  max_memory_evaluation_bytes: z
    .number()
    .int()
    .min(1_048_576)
    .max(MAX_MEMORY_BYTES)
    .default(268_435_456)
    .describe(
      'Memory store: estimated bytes of stored evaluations (mostly their values) kept at most; oldest dropped past this.',
    ),
  max_memory_idempotency_records: z
    .number()
    .int()
    .min(1)
    .max(MAX_MEMORY_RECORDS)
    .default(10_000)
    .describe('Memory store: idempotency records kept at most; oldest dropped past this.'),
  max_memory_idempotency_bytes: z
    .number()
    .int()
    .min(65_536)
    .max(MAX_MEMORY_BYTES)
    .default(67_108_864)
    .describe(
      'Memory store: bytes of idempotency records (their stored responses) kept at most; oldest dropped past this.',
    ),
  postgresql: z
    .strictObject({
      url_env: envVarName().describe('Environment variable holding the postgres:// connection URL.'),
      max_connections: z.number().int().min(1).max(256).default(16),
      connect_timeout: durationMs({ min: 100, max: 60_000 }).default(5_000),
      operation_timeout: durationMs({ min: 100, max: 60_000 })
        .default(5_000)
        .describe('A state query running longer fails with 503 `state.unavailable`.'),
    })
    .optional(),
});

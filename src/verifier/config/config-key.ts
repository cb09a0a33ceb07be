// Names a verifier config gives things (claim ids, ids, mapping keys) and the mappings keyed by them.
import { z } from 'zod';

export const CLAIM_ID_PATTERN = /^[a-z][a-z0-9_.-]{0,127}$/;
export const KEY_PATTERN = /^[a-z][a-z0-9_]*$/;
/** A credential id may hold `-` too, as the reference verifier's own example configs write them (`caller-a`). */
export const CREDENTIAL_ID_PATTERN = /^[a-z][a-z0-9_-]*$/;
/** Ids and mapping keys are at most as long as a claim id: they are named in logs, audit records and problems. */
const KEY_MAX = 128;
export const keyName = z.string().max(KEY_MAX).regex(KEY_PATTERN);
export const key = (what: string) =>
  z.string().max(KEY_MAX).regex(KEY_PATTERN, `${what} must match ^[a-z][a-z0-9_]*$`);

/**
 * A mapping by key of at most `max` entries (`what` names them in the message). Counted even when an entry is
 * wrong, so both are reported at once.
 */
export function boundedRecord<V extends z.ZodType>(value: V, max: number, what: string) {
  return z.record(keyName, value).refine((map) => Object.keys(map).length <= max, {
    message: `must map at most ${max} ${what}`,
    when: ({ value: input }) => typeof input === 'object' && input !== null && !Array.isArray(input),
  });
}

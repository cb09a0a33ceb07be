// A purpose as the config names it (`evidence.allowed_purposes`, a claim's `purpose`): text a request can state.
import { z } from 'zod';

/**
 * As a request purpose is checked (plan-evaluation.ts): visible ASCII with inner spaces, at most 512 characters, since
 * it travels as the `Data-Purpose` header of every source read. A configured purpose outside it could never be
 * stated, so the claims it limits could never be evaluated.
 */
export const PURPOSE_TEXT = /^[\x21-\x7e](?:[\x20-\x7e]{0,510}[\x21-\x7e])?$/;

export const purposeText = z
  .string()
  .regex(
    PURPOSE_TEXT,
    'must be 1 to 512 visible ASCII characters, spaces only inside (a request states its purpose so)',
  );

// An enum whose refusal of a known other value (as another implementation's configs spell it) says what to write.
import { z } from 'zod';

/**
 * `z.enum(values)`, except that a value listed in `hints` is refused with its hint, e.g. `syslog` with "there is no
 * syslog sink: use ...", rather than with the list of values alone.
 */
export function enumWithHints<const T extends readonly [string, ...string[]]>(
  values: T,
  hints: Readonly<Record<string, string>>,
) {
  return z.enum(values, {
    error: (issue) =>
      typeof issue.input === 'string' && Object.hasOwn(hints, issue.input)
        ? `\`${issue.input}\`: ${hints[issue.input]}`
        : undefined,
  });
}

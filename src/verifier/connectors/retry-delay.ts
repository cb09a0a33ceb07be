// How long to wait before the next attempt: `Retry-After` when the source sent one, else jittered exponential backoff.

export interface RetryPolicy {
  readonly max_attempts: number;
  readonly base_delay: number;
  readonly max_delay: number;
  readonly max_retry_after: number;
}

/** The longest pause a `Retry-After` is read as: a longer one (or an absurd one, 300 digits) counts as a day. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * Parses `Retry-After` (delay-seconds or an HTTP date) into whole milliseconds from `now`, at most
 * `MAX_RETRY_AFTER_MS`; undefined when absent or bad.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/**
 * Delay before attempt `attempt + 1` (attempt counts from 1), or undefined when the read should give up now:
 * attempts used up, or the source asked for a longer pause than `max_retry_after`.
 * `fraction` is a uniform random number in [0, 1) (full jitter).
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  fraction: number,
): number | undefined {
  if (attempt >= policy.max_attempts) return undefined;
  if (retryAfterMs !== undefined) return retryAfterMs > policy.max_retry_after ? undefined : retryAfterMs;
  const ceiling = Math.min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1));
  return Math.floor(fraction * ceiling);
}

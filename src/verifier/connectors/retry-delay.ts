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
 * `MAX_RETRY_AFTER_MS`; undefined when absent or bad. A date is the source's clock: it is measured from the
 * response's `Date` (`sentAt`) when that is a valid HTTP-date, so a source whose clock is off is not waited for
 * that much longer (or shorter).
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number,
  sentAt?: string | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const date = parseHttpDate(text, now);
  if (date === undefined) return undefined;
  const from = sentAt === undefined ? undefined : parseHttpDate(sentAt.trim(), now);
  return Math.min(Math.max(0, date - (from ?? now)), MAX_RETRY_AFTER_MS);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_NAME = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = `(?<month>${MONTHS.join('|')})`;
const TIME = '(?<hour>\\d{2}):(?<minute>\\d{2}):(?<second>\\d{2})';
// The three HTTP-date forms of RFC 9110 §5.6.7 (IMF-fixdate, RFC 850, asctime), case-sensitive as it says. Only
// these: `Date.parse` also reads `-1`, `1.5` or `1, 2` as dates, which would turn garbage into "retry now".
const HTTP_DATES = [
  new RegExp(`^${DAY_NAME}, (?<day>\\d{2}) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`),
  new RegExp(
    `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (?<day>\\d{2})-${MONTH}-(?<year>\\d{2}) ${TIME} GMT$`,
  ),
  new RegExp(`^${DAY_NAME} ${MONTH} (?<day> \\d|\\d{2}) ${TIME} (?<year>\\d{4})$`),
];

/** An HTTP-date as epoch milliseconds (every form is UTC), or undefined when `text` is not one. */
function parseHttpDate(text: string, now: number): number | undefined {
  for (const form of HTTP_DATES) {
    const parts = form.exec(text)?.groups;
    if (parts) return utcTime(parts, now);
  }
  return undefined;
}

/** Undefined for a date or time that does not exist (31 Feb, 24:00:00); a leap second (:60) is allowed. */
function utcTime(parts: Record<string, string | undefined>, now: number): number | undefined {
  const [day, hour, minute, second] = [parts.day, parts.hour, parts.minute, parts.second].map(Number);
  const month = MONTHS.indexOf(parts.month ?? '');
  const year = parts.year?.length === 2 ? fullYear(Number(parts.year), now) : Number(parts.year);
  if (day === undefined || hour === undefined || minute === undefined || second === undefined)
    return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const midnight = new Date(Date.UTC(year, month, day));
  if (midnight.getUTCDate() !== day || midnight.getUTCMonth() !== month) return undefined;
  return midnight.getTime() + ((hour * 60 + minute) * 60 + second) * 1000;
}

/** RFC 850's two-digit year: the latest year with those digits not more than 50 years ahead (RFC 9110). */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const year = current - (current % 100) + twoDigits;
  return year > current + 50 ? year - 100 : year;
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

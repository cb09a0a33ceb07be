// Request time-outs with one shared interval instead of a timer per request.
import type { RouteReply, RouteRequest } from './route-types.ts';

export interface RequestWatchdog {
  watch(request: RouteRequest, reply: RouteReply): void;
  release(request: RouteRequest): void;
  stop(): void;
}

/** One watched request: a link in the deadline-ordered list. */
interface Watched {
  readonly request: RouteRequest;
  readonly reply: RouteReply;
  readonly deadline: number;
  prev: Watched | undefined;
  next: Watched | undefined;
}

// The link lives on the request itself, so watching and releasing need no lookup table.
const LINK = Symbol('watchdog link');
type Linked = RouteRequest & { [LINK]?: Watched | undefined };

/**
 * When the watchdog answers `request` if it is still running (on the watchdog's clock, `performance.now()` unless
 * one was injected); undefined once it is answered, or when it is not watched. Work done for the request, such as
 * upstream reads, can stop there: its client has had its answer.
 */
export function requestDeadline(request: RouteRequest): number | undefined {
  return (request as Linked)[LINK]?.deadline;
}

/**
 * Checks in-flight requests every quarter of the time-out (between 10 ms and 1 s), so a request is answered
 * between `timeoutMs` and `timeoutMs` plus one tick after it started. Uses the monotonic clock: time-outs are
 * about real elapsed time, never the injected business clock.
 *
 * Every request gets the same time-out, so appending each new one to a linked list keeps the list ordered by
 * deadline: a sweep stops at the first request still in time, and a release unlinks in constant time. (A Map keyed
 * by request kept each request's objects alive into old space under load: garbage collection then took a quarter
 * of the process's CPU.)
 */
export function createRequestWatchdog(
  timeoutMs: number,
  onTimeout: (request: RouteRequest, reply: RouteReply) => void,
  now: () => number = () => performance.now(),
): RequestWatchdog {
  const tick = Math.min(1000, Math.max(10, Math.floor(timeoutMs / 4)));
  let head: Watched | undefined;
  let tail: Watched | undefined;
  let interval: NodeJS.Timeout | undefined;

  const unlink = (entry: Watched): void => {
    if (entry.prev) entry.prev.next = entry.next;
    else head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else tail = entry.prev;
    entry.prev = entry.next = undefined;
    (entry.request as Linked)[LINK] = undefined;
  };

  const sweep = () => {
    const at = now();
    while (head !== undefined && head.deadline <= at) {
      const expired = head;
      unlink(expired);
      onTimeout(expired.request, expired.reply);
    }
    if (head === undefined && interval) {
      clearInterval(interval);
      interval = undefined;
    }
  };

  return {
    watch(request, reply) {
      const entry: Watched = {
        request,
        reply,
        deadline: now() + timeoutMs,
        prev: tail,
        next: undefined,
      };
      if (tail) tail.next = entry;
      else head = entry;
      tail = entry;
      (request as Linked)[LINK] = entry;
      if (!interval) {
        // Kept referenced while requests are in flight (they are pending work); cleared when none are.
        interval = setInterval(sweep, tick);
      }
    },
    release(request) {
      const entry = (request as Linked)[LINK];
      if (entry) unlink(entry);
    },
    stop() {
      if (interval) clearInterval(interval);
      interval = undefined;
      while (head) unlink(head);
    },
  };
}

// Request time-outs with one shared interval instead of a timer per request.
import type { IncomingMessage } from 'node:http';
import type { Deadline } from '../deadline.ts';
import type { RouteReply, RouteRequest } from './route-types.ts';

export interface RequestWatchdog {
  watch(request: RouteRequest, reply: RouteReply): void;
  release(request: RouteRequest): void;
  /**
   * The client of the request read as `raw` went away: its deadline becomes now and it is no longer watched.
   * Returns the request and its reply to answer, or undefined when it was not watched (answered already).
   */
  abandon(raw: IncomingMessage): { readonly request: RouteRequest; readonly reply: RouteReply } | undefined;
  stop(): void;
}

/** One watched request: a link in the deadline-ordered list, and the request's deadline as work reads it. */
interface Watched extends Deadline {
  readonly request: RouteRequest;
  readonly reply: RouteReply;
  /** Brought forward only once unlinked (`abandon`): the list stays ordered. */
  at: number;
  prev: Watched | undefined;
  next: Watched | undefined;
}

// The link lives on Node's request itself, so watching, releasing and abandoning (from the connection, which knows
// only Node's request) need no lookup table.
const LINK = Symbol('watchdog link');
type Linked = IncomingMessage & { [LINK]?: Watched | undefined };

/** The deadline of a request answered already, or never watched. */
const PASSED: Deadline = Object.freeze({ at: Number.NEGATIVE_INFINITY });

/**
 * When the watchdog answers `request` if it is still running (on the watchdog's clock, `performance.now()` unless
 * one was injected); undefined once it is answered, or when it is not watched. Work done for the request, such as
 * upstream reads, can stop there: its client has had its answer.
 */
export function requestDeadline(request: RouteRequest): number | undefined {
  return (request.raw as Linked)[LINK]?.at;
}

/**
 * The request's deadline as a `Deadline` that follows it: brought forward to the moment its client goes away. A
 * request already answered (or never watched) has a deadline long passed.
 */
export function liveDeadline(request: RouteRequest): Deadline {
  return (request.raw as Linked)[LINK] ?? PASSED;
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
    (entry.request.raw as Linked)[LINK] = undefined;
  };

  const sweep = () => {
    const time = now();
    while (head !== undefined && head.at <= time) {
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
        at: now() + timeoutMs,
        prev: tail,
        next: undefined,
      };
      if (tail) tail.next = entry;
      else head = entry;
      tail = entry;
      (request.raw as Linked)[LINK] = entry;
      if (!interval) {
        // Kept referenced while requests are in flight (they are pending work); cleared when none are.
        interval = setInterval(sweep, tick);
      }
    },
    release(request) {
      const entry = (request.raw as Linked)[LINK];
      if (entry) unlink(entry);
    },
    abandon(raw) {
      const entry = (raw as Linked)[LINK];
      if (entry === undefined) return undefined;
      unlink(entry);
      entry.at = now();
      return entry;
    },
    stop() {
      if (interval) clearInterval(interval);
      interval = undefined;
      while (head) unlink(head);
    },
  };
}

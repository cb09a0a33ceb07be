// Request time-outs with one shared interval instead of a timer per request.
import type { RouteReply, RouteRequest } from './route-types.ts';

export interface RequestWatchdog {
  watch(request: RouteRequest, reply: RouteReply): void;
  release(request: RouteRequest): void;
  stop(): void;
}

/**
 * Checks in-flight requests every quarter of the time-out (between 10 ms and 1 s), so a request is answered
 * between `timeoutMs` and `timeoutMs` plus one tick after it started. Uses the monotonic clock: time-outs are
 * about real elapsed time, never the injected business clock.
 */
export function createRequestWatchdog(
  timeoutMs: number,
  onTimeout: (request: RouteRequest, reply: RouteReply) => void,
): RequestWatchdog {
  const inFlight = new Map<RouteRequest, { reply: RouteReply; deadline: number }>();
  const tick = Math.min(1000, Math.max(10, Math.floor(timeoutMs / 4)));
  let interval: NodeJS.Timeout | undefined;

  const sweep = () => {
    const now = performance.now();
    for (const [request, entry] of inFlight) {
      if (entry.deadline <= now) {
        inFlight.delete(request);
        onTimeout(request, entry.reply);
      }
    }
    if (inFlight.size === 0 && interval) {
      clearInterval(interval);
      interval = undefined;
    }
  };

  return {
    watch(request, reply) {
      inFlight.set(request, { reply, deadline: performance.now() + timeoutMs });
      if (!interval) {
        // Kept referenced while requests are in flight (they are pending work); cleared when none are.
        interval = setInterval(sweep, tick);
      }
    },
    release(request) {
      inFlight.delete(request);
    },
    stop() {
      if (interval) clearInterval(interval);
      interval = undefined;
      inFlight.clear();
    },
  };
}

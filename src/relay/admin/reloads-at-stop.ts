// Admin reloads while the relay stops. A reload is answered however long it takes (create-relay-admin-app.ts), but
// the admin listener drains for at most twice the request time-out (drain-server.ts): an answer not written by then
// is cut with its connection, and its audit record comes after the audit file is closed. So once the stop begins, a
// reload gets one request time-out to finish, as any request does, and is then answered 503 `http.shutting_down`:
// the drain's other half is left for that answer, and its audit record, to be written.
import type { Logger } from '../../platform/log.ts';
import { platformProblem } from '../../platform/problem/platform-problems.ts';

export interface ReloadsAtStop {
  /** `reload`'s outcome, or the `http.shutting_down` problem once the stop has waited its time for it. */
  bounded<T>(reload: Promise<T>): Promise<T>;
  /** The stop begins: the reloads running now, and any started from now on, have `graceMs` left. */
  stop(): void;
  /** The listener is closed: nothing is left to answer. */
  closed(): void;
}

const ABANDONED =
  'The relay is stopping and the reload did not finish within its time to stop; it is abandoned (the relay loads every source again when it starts).';

export function reloadsAtStop(graceMs: number, logger: Logger): ReloadsAtStop {
  // The way to answer each reload still running: a Set, not a race with one shared promise, which would keep a
  // reaction per reload for the relay's lifetime.
  const running = new Set<(problem: unknown) => void>();
  let timer: NodeJS.Timeout | undefined;
  let overdue = false;

  const abandon = (): void => {
    overdue = true;
    if (running.size === 0) return;
    logger.warn(
      { reloads: running.size, grace_ms: graceMs },
      'relay stopping: admin reloads still running were answered 503 http.shutting_down and abandoned',
    );
    for (const answer of running) answer(platformProblem('http.shutting_down', ABANDONED));
    running.clear();
  };

  return {
    bounded<T>(reload: Promise<T>): Promise<T> {
      if (overdue) {
        // Its outcome reaches nobody; a failure of it must not surface as an unhandled rejection.
        reload.catch(() => {});
        return Promise.reject(platformProblem('http.shutting_down', ABANDONED));
      }
      return new Promise<T>((resolve, reject) => {
        running.add(reject);
        reload.then(
          (outcome) => {
            running.delete(reject);
            resolve(outcome);
          },
          (error: unknown) => {
            running.delete(reject);
            reject(error);
          },
        );
      });
    },
    stop() {
      if (timer !== undefined || overdue) return;
      timer = setTimeout(abandon, graceMs);
      // The reloads' connections keep the process up while they run; the timer alone need not.
      timer.unref();
    },
    closed() {
      clearTimeout(timer);
    },
  };
}

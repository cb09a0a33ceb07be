// The attempts on their way and the pauses between attempts of a connector's reads, kept so that those of a request
// answered early (its client went away, which brings its deadline to then) end at once rather than when their own
// timers do: an attempt so dropped closes its socket and frees its max_in_flight slot for the next read.
import { type Cancellable, TransportError } from './create-http-transport.ts';
import { requestTimedOut } from './source-reader.ts';

/** What a watched read is for: its deadline, read at each look (it moves earlier when the client goes away). */
export interface Timed {
  readonly deadline: number | undefined;
}

export interface ReadWatch {
  /** Runs `send` with the handle `recheck` drops it by, until the promise it returns settles. */
  attempt<T>(read: Timed, send: (cancellable: Cancellable) => Promise<T>): Promise<T>;
  /** Waits for `sleep`, or less: until `recheck` finds the read's deadline passed. */
  pause(read: Timed, sleep: Promise<void>): Promise<void>;
  /** Drops the attempts and ends the pauses of reads whose deadline has passed. */
  recheck(): void;
}

interface Sending extends Cancellable {
  readonly read: Timed;
}

interface Pausing {
  readonly read: Timed;
  readonly wake: () => void;
}

export function createReadWatch(): ReadWatch {
  const sending = new Set<Sending>();
  const pausing = new Set<Pausing>();
  return {
    attempt(read, send) {
      const entry: Sending = { read, cancel: undefined };
      sending.add(entry);
      return send(entry).then(
        (value) => {
          sending.delete(entry);
          return value;
        },
        (error: unknown) => {
          sending.delete(entry);
          throw error;
        },
      );
    },
    pause(read, sleep) {
      return new Promise<void>((resolve) => {
        const entry: Pausing = { read, wake: resolve };
        pausing.add(entry);
        sleep.then(() => {
          pausing.delete(entry);
          resolve();
        });
      });
    },
    recheck() {
      const now = performance.now();
      for (const entry of sending) if (hasPassed(entry.read, now)) entry.cancel?.();
      for (const entry of pausing) {
        if (!hasPassed(entry.read, now)) continue;
        pausing.delete(entry);
        entry.wake();
      }
    },
  };
}

export function hasPassed(read: Timed, now = performance.now()): boolean {
  return read.deadline !== undefined && read.deadline <= now;
}

/**
 * An attempt that timed out once its request had no time left (`outOfTime`: cut to the deadline, or dropped when
 * the request was answered early): the request has timed out, not the source.
 */
export function deadlineReached(error: unknown, outOfTime: boolean): never {
  if (outOfTime && error instanceof TransportError && error.kind === 'timeout') {
    throw requestTimedOut('source.timeout', 'the source did not answer before the request timed out');
  }
  throw error;
}

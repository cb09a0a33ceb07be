// Waiting on work that cannot itself be cancelled (a source load, a database's first connection) while a signal
// may ask the wait to stop: the caller gives up waiting and closes what it opened; the work goes on by itself.

/** Settles as `work` does, or rejects with the signal's reason as soon as `signal` aborts (at once if it has). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    // Also handles a failure of `work` after the abort, which nobody awaits any more.
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

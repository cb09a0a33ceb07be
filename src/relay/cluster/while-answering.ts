// A reload is waited for however long its load takes, but only while the worker doing it shows it is alive: a
// process that stops answering without dying (frozen by SIGSTOP or by its host) would otherwise hold the admin
// request forever. The worker is pinged, one ping at a time; one left unanswered for `silentMs` counts the worker
// as gone for this request, as one that exited would be. The work itself is not cancelled: it may still finish there.

export interface Liveness {
  /** The pause between an answered ping and the next. */
  readonly everyMs: number;
  /** How long a ping may go unanswered. */
  readonly silentMs: number;
  readonly label: string;
}

export function whileAnswering<T>(
  work: Promise<T>,
  ping: (silentMs: number) => Promise<unknown>,
  liveness: Liveness,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      done = true;
      clearTimeout(timer);
    };
    work.then(
      (value) => {
        finish();
        resolve(value);
      },
      (error: unknown) => {
        finish();
        reject(error);
      },
    );
    const next = () => {
      timer = setTimeout(() => {
        ping(liveness.silentMs).then(
          () => {
            if (!done) next();
          },
          (error: unknown) => {
            if (done) return;
            finish();
            const why = error instanceof Error ? error.message : String(error);
            reject(new Error(`${liveness.label} stopped answering (${why})`));
          },
        );
      }, liveness.everyMs);
      // The admin request being waited on keeps the process alive, not this timer.
      timer.unref?.();
    };
    next();
  });
}

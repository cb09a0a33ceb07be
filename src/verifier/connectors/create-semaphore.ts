// A counting semaphore: at most `limit` holders at once, the rest wait in arrival order.
export interface Semaphore {
  /** Runs `task` while holding one permit. */
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly inFlight: number;
  readonly waiting: number;
}

export function createSemaphore(limit: number): Semaphore {
  let inFlight = 0;
  const waiters: (() => void)[] = [];

  const acquire = (): Promise<void> => {
    if (inFlight < limit) {
      inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiters.push(resolve));
  };

  const release = () => {
    const next = waiters.shift();
    // The permit passes straight to the next waiter, so the count never dips below the limit under load.
    if (next) next();
    else inFlight--;
  };

  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return waiters.length;
    },
  };
}

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

  const release = () => {
    const next = waiters.shift();
    // The permit passes straight to the next waiter, so the count never dips below the limit under load.
    if (next) next();
    else inFlight--;
  };

  // Plain promise chaining rather than async/await: this runs around every source read, and a free permit
  // should cost no extra turns of the microtask queue.
  const holding = <T>(task: () => Promise<T>): Promise<T> => {
    let running: Promise<T>;
    try {
      running = task();
    } catch (error) {
      release();
      return Promise.reject(error);
    }
    return running.then(
      (value) => {
        release();
        return value;
      },
      (error: unknown) => {
        release();
        throw error;
      },
    );
  };

  return {
    run(task) {
      if (inFlight < limit) {
        inFlight++;
        return holding(task);
      }
      return new Promise<void>((resolve) => waiters.push(resolve)).then(() => holding(task));
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return waiters.length;
    },
  };
}

// A counting semaphore: at most `limit` holders at once, the rest wait in arrival order.
export interface Semaphore {
  /**
   * Runs `task` while holding one permit. With `waitUntil` (a `performance.now()` instant), a task still waiting
   * for its permit then never runs: `run` rejects with a `PermitTimeout`.
   */
  run<T>(task: () => Promise<T>, waitUntil?: number): Promise<T>;
  readonly inFlight: number;
  readonly waiting: number;
}

/** No permit came free before the waiting task's `waitUntil`. */
export class PermitTimeout extends Error {
  constructor() {
    super('no permit came free in time');
    this.name = 'PermitTimeout';
  }
}

export function createSemaphore(limit: number): Semaphore {
  return new CountingSemaphore(limit);
}

// A class with plain promise chaining rather than closures and async/await: one is made for every evaluation and
// runs around every source read; a free permit should cost no extra microtask turns, and no functions made per call
// (which tsx's name-keeping wraps in an Object.defineProperty each).
class CountingSemaphore implements Semaphore {
  private held = 0;
  private readonly limit: number;
  private readonly waiters: (() => void)[] = [];

  constructor(limit: number) {
    this.limit = limit;
  }

  get inFlight(): number {
    return this.held;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  run<T>(task: () => Promise<T>, waitUntil?: number): Promise<T> {
    if (this.held < this.limit) {
      this.held++;
      return this.holding(task);
    }
    if (waitUntil === undefined) {
      return new Promise<void>((resolve) => this.waiters.push(resolve)).then(() => this.holding(task));
    }
    return this.waitAtMost(waitUntil).then(() => this.holding(task));
  }

  /** A place in the queue that is given up at `waitUntil`; the timer exists only while the task waits. */
  private waitAtMost(waitUntil: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          const index = this.waiters.indexOf(granted);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(new PermitTimeout());
        },
        Math.max(0, waitUntil - performance.now()),
      );
      const granted = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(granted);
    });
  }

  private holding<T>(task: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = task();
    } catch (error) {
      this.release();
      return Promise.reject(error);
    }
    return running.then(
      (value) => {
        this.release();
        return value;
      },
      (error: unknown) => {
        this.release();
        throw error;
      },
    );
  }

  private release(): void {
    const next = this.waiters.shift();
    // The permit passes straight to the next waiter, so the count never dips below the limit under load.
    if (next) next();
    else this.held--;
  }
}

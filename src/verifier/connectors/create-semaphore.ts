// A counting semaphore: at most `limit` holders at once, the rest wait in arrival order.
export interface Semaphore {
  /** Runs `task` while holding one permit. */
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly inFlight: number;
  readonly waiting: number;
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

  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.held < this.limit) {
      this.held++;
      return this.holding(task);
    }
    return new Promise<void>((resolve) => this.waiters.push(resolve)).then(() => this.holding(task));
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

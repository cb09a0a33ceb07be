// CEL evaluation: a small worker pool with a time limit, a memory cap and size limits; expressions whose cost is
// bounded by their size (bounded-cel.ts) run on the request thread, through the same task runner, instead.
import type { Worker } from 'node:worker_threads';
import type { Deadline } from '../../platform/deadline.ts';
import { isBoundedCel, MAX_INLINE_INPUT_CHARS } from './bounded-cel.ts';
import { CelEvaluationError, cannotStart } from './cel-evaluation-error.ts';
import { type CelTask, type CelTaskResult, runCelTask } from './run-cel-task.ts';
import { serialise } from './serialise-cel-bindings.ts';
import { CEL_WORKER_SOURCE, restartDelayMs, retire, spawnCelWorker } from './spawn-cel-worker.ts';

export { CelEvaluationError, retire };

export interface CelLimits {
  readonly eval_timeout: number;
  readonly worker_count: number;
  readonly worker_memory_mb: number;
  readonly max_binding_json_bytes: number;
  readonly max_result_json_bytes: number;
}

export interface CelEvaluator {
  /** `cel.max_result_json_bytes`: the largest result, also the largest value an `extract` rule may take. */
  readonly maxResultBytes: number;
  /** Starts the workers now rather than on the first evaluation. */
  warm(): void;
  /**
   * Resolves with the JSON result; rejects with a CelEvaluationError on any failure or limit. `deadline`: the
   * request is answered by then, so a task still queued then is not run, and a running one is stopped.
   * `wantsInt`: the claim's value is an integer, and a double result is refused. `doubleClaims`: the aliases of
   * `claims` whose value is a `number` sub-claim's, read as a double even when whole.
   */
  evaluate(
    expression: string,
    bindings: Readonly<Record<string, unknown>>,
    deadline?: Deadline,
    wantsInt?: boolean,
    doubleClaims?: readonly string[],
  ): Promise<unknown>;
  /**
   * Looks at the deadlines of the tasks again, now: one was brought forward (its client went away). A running task
   * whose deadline has passed is stopped and its worker freed; queued ones are dropped when their turn comes.
   */
  recheck(): void;
  /** Whether `expression` runs on the request thread (bounded-cel.ts) rather than in a worker. */
  runsInline(expression: string): boolean;
  /** Every worker failed its last start: until one starts, work that needs one is refused (`worker_failed`). */
  workersFailing(): boolean;
  close(): Promise<void>;
}

export interface CelPoolOptions {
  /** The script a worker thread runs; tests give one that fails to load. */
  readonly workerSource?: string;
  /** A worker failed to start (it is started again after `retryInMs`). */
  onWorkerStartFailed?(message: string, retryInMs: number): void;
}

interface Pending {
  readonly task: CelTask;
  readonly deadline: Deadline | undefined;
  /** Put back in the queue after its worker was stopped (another task of its hand-off ran over): run alone. */
  requeued: boolean;
  /** The deadline the worker was told at the hand-off: one brought forward since is not known to the worker. */
  told?: number | undefined;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Starts failed in a row (the worker errored or exited before it was ready); 0 once one is ready. */
  failures: number;
  /** The next start, while waiting after a failed one. */
  restart: NodeJS.Timeout | undefined;
  /** The tasks handed to the worker, in the order it runs them; undefined while it is idle. */
  batch: Pending[] | undefined;
  timer: NodeJS.Timeout | undefined;
  /**
   * Shared with the worker: [index in the batch of the task running, when it started (process.hrtime, ns)]. The
   * monotonic clock, which every thread of the process reads alike: a wall clock stepped back (NTP, a restored VM)
   * would let a runaway expression run that much longer, one stepped forward would stop a sound one.
   */
  readonly progress: BigInt64Array;
}

/** Tasks handed over in one message: evaluations that resume together share the hand-off both ways. */
const MAX_BATCH = 32;
/** How soon a worker is looked at again while it holds a task whose request was answered after the hand-off. */
const RECHECK_MS = 10;

/** Expressions classified so far (claims name a fixed set; cleared if a caller somehow makes many). */
const MAX_CLASSIFIED = 1000;

export function createCelEvaluator(limits: CelLimits, options: CelPoolOptions = {}): CelEvaluator {
  const workerSource = options.workerSource ?? CEL_WORKER_SOURCE;
  const spawnWorker = (progress: BigInt64Array) => spawnCelWorker(limits, progress, workerSource);
  const inline = new Map<string, boolean>();
  const runsInline = (expression: string): boolean => {
    let bounded = inline.get(expression);
    if (bounded === undefined) {
      bounded = isBoundedCel(expression);
      if (inline.size >= MAX_CLASSIFIED) inline.clear();
      inline.set(expression, bounded);
    }
    return bounded;
  };
  const inlineLimits = {
    maxResultBytes: limits.max_result_json_bytes,
    maxBytesMade: limits.worker_memory_mb * 1024 * 1024,
  };
  const slots: Slot[] = [];
  const queue: Pending[] = [];
  let nextId = 1;
  let closed = false;
  let pumpScheduled = false;

  /** Takes the slot's batch off it (stopping its timer) and returns it. */
  const takeBatch = (slot: Slot): Pending[] => {
    const batch = slot.batch ?? [];
    slot.batch = undefined;
    clearTimeout(slot.timer);
    slot.timer = undefined;
    return batch;
  };

  /**
   * The worker stopped in the middle of a batch (time limit, crash): the task it was running fails with `error`, the
   * others go back to the front of the queue (CEL has no side effects, so running a finished one again is harmless),
   * and a fresh worker takes the slot.
   */
  const replace = (slot: Slot, error: CelEvaluationError) => {
    const batch = takeBatch(slot);
    const running = Math.min(Math.max(0, Number(Atomics.load(slot.progress, 0))), batch.length - 1);
    batch[running]?.reject(error);
    const rest = batch.filter((_, index) => index !== running);
    for (const pending of rest) pending.requeued = true;
    queue.unshift(...rest);
    retire(slot.worker);
    if (!closed) attach(slot, spawnWorker(slot.progress));
  };

  const failing = () => slots.length > 0 && slots.every((slot) => !slot.ready && slot.failures > 0);

  // The worker stopped before it was ready: started again after a pause (at once, a failing start would take a core
  // in a loop). Once every worker has failed, the queued tasks are refused rather than left waiting for one.
  const startFailed = (slot: Slot, message: string) => {
    retire(slot.worker);
    slot.failures++;
    const wait = restartDelayMs(slot.failures);
    slot.restart = setTimeout(() => {
      slot.restart = undefined;
      if (!closed) attach(slot, spawnWorker(slot.progress));
    }, wait);
    slot.restart.unref();
    options.onWorkerStartFailed?.(message, wait);
    if (!failing()) return;
    for (const pending of queue.splice(0)) pending.reject(cannotStart(message));
  };

  /**
   * Fires when the running task may have passed its time limit, or its request's deadline (its answer is then no
   * longer wanted, and the worker is freed for others at once rather than at the limit); re-arms while neither has
   * passed, until the first deadline among the tasks still to run. (The worker skips a task whose deadline passed
   * before it got there.)
   */
  const watch = (slot: Slot) => {
    // The index first: its start is then the one noted with it or a later one.
    const index = Number(Atomics.load(slot.progress, 0));
    const started = Atomics.load(slot.progress, 1);
    const left = Number(started - process.hrtime.bigint()) / 1e6 + limits.eval_timeout;
    if (left <= 0) {
      replace(slot, new CelEvaluationError('timeout', `CEL evaluation exceeded ${limits.eval_timeout}ms`));
      schedulePump();
      return;
    }
    const batch = slot.batch ?? [];
    const now = performance.now();
    const running = index >= 0 ? batch[index]?.deadline?.at : undefined;
    if (running !== undefined && running <= now) {
      replace(
        slot,
        new CelEvaluationError('timeout', 'the request was answered before the expression finished'),
      );
      schedulePump();
      return;
    }
    let wait = left;
    for (let next = Math.max(0, index); next < batch.length; next++) {
      const pending = batch[next] as Pending;
      const deadline = pending.deadline?.at;
      if (deadline === undefined) continue;
      if (deadline > now) wait = Math.min(wait, deadline - now);
      // Brought forward after the hand-off (its client went away): the worker would run it, so it is looked at
      // again shortly, to be stopped once it starts.
      else if (pending.told !== undefined && deadline < pending.told) wait = Math.min(wait, RECHECK_MS);
    }
    slot.timer = setTimeout(() => watch(slot), wait);
  };

  const attach = (slot: Slot, worker: Worker) => {
    slot.worker = worker;
    slot.ready = false;
    worker.on('message', (message: readonly CelTaskResult[] | { ready: true }) => {
      if ('ready' in message) {
        slot.ready = true;
        slot.failures = 0;
        schedulePump();
        return;
      }
      const batch = takeBatch(slot);
      batch.forEach((pending, index) => {
        const result = message[index];
        if (result === undefined || result.id !== pending.task.id) {
          pending.reject(new CelEvaluationError('worker_failed', 'the CEL worker answered out of turn'));
        } else {
          finish(pending, result);
        }
      });
      schedulePump();
    });
    worker.on('error', (error) => {
      if (!slot.ready) return startFailed(slot, `CEL worker failed to start: ${error.message}`);
      replace(slot, new CelEvaluationError('worker_failed', `CEL worker failed: ${error.message}`));
      schedulePump();
    });
    worker.on('exit', () => {
      if (slot.worker !== worker || closed) return;
      if (!slot.ready) return startFailed(slot, 'CEL worker exited before it was ready');
      replace(slot, new CelEvaluationError('worker_failed', 'CEL worker exited'));
      schedulePump();
    });
  };

  /**
   * The next hand-off: up to `size` queued tasks, leaving out (failed) those whose request has been answered
   * meanwhile. A task put back after its worker was stopped goes alone: the task that ran over may have had others
   * like it in its hand-off, and alone each is timed, and spread over the workers, on its own.
   */
  const nextBatch = (size: number): Pending[] => {
    const now = performance.now();
    const batch: Pending[] = [];
    while (queue.length > 0 && batch.length < size) {
      const pending = queue[0] as Pending;
      if (pending.deadline !== undefined && pending.deadline.at <= now) {
        queue.shift();
        pending.reject(
          new CelEvaluationError('timeout', 'the request was answered before the expression ran'),
        );
        continue;
      }
      if (pending.requeued && batch.length > 0) break;
      queue.shift();
      batch.push(pending);
      if (pending.requeued) break;
    }
    return batch;
  };

  const pump = () => {
    pumpScheduled = false;
    // The queue is shared among the idle workers (those still starting included, which take their share once
    // ready): tasks handed to one worker run one after another, so a quick task must not wait behind a slow one
    // there while another worker has nothing to do.
    const idle = slots.filter((slot) => !slot.batch).length;
    const share = Math.min(MAX_BATCH, Math.ceil(queue.length / Math.max(1, idle)));
    for (const slot of slots) {
      if (!slot.ready || slot.batch || queue.length === 0) continue;
      const batch = nextBatch(share);
      if (batch.length === 0) continue;
      slot.batch = batch;
      // Until the worker reaches the first task, its time counts from now (as a single hand-off's did).
      const handedOff = process.hrtime.bigint();
      Atomics.store(slot.progress, 1, handedOff);
      Atomics.store(slot.progress, 0, -1n);
      watch(slot);
      const now = performance.now();
      slot.worker.postMessage(
        batch.map((pending) => {
          const { task, deadline } = pending;
          if (deadline === undefined || !Number.isFinite(deadline.at)) return task;
          pending.told = deadline.at;
          return { ...task, expiresAt: handedOff + BigInt(Math.ceil((deadline.at - now) * 1e6)) };
        }),
      );
    }
  };

  /** Evaluations resuming in the same turn (their source read answered together) are handed over together. */
  const schedulePump = () => {
    if (pumpScheduled) return;
    pumpScheduled = true;
    queueMicrotask(pump);
  };

  const start = () => {
    while (!closed && slots.length < limits.worker_count) {
      const progress = new BigInt64Array(new SharedArrayBuffer(16));
      const slot: Slot = {
        worker: undefined as unknown as Worker,
        ready: false,
        failures: 0,
        restart: undefined,
        batch: undefined,
        timer: undefined,
        progress,
      };
      attach(slot, spawnWorker(progress));
      slots.push(slot);
    }
  };

  return {
    maxResultBytes: limits.max_result_json_bytes,
    warm: start,
    evaluate(expression, bindings, deadline, wantsInt, doubleClaims) {
      if (closed)
        return Promise.reject(new CelEvaluationError('worker_failed', 'the CEL evaluator is closed'));
      const inputs = serialise(bindings);
      if (inputs === undefined || inputs.sourced > limits.max_binding_json_bytes) {
        return Promise.reject(
          new CelEvaluationError(
            'too_large',
            inputs === undefined
              ? 'CEL inputs nest too deeply to be passed on'
              : `CEL inputs are ${inputs.sourced} bytes, over ${limits.max_binding_json_bytes}`,
          ),
        );
      }
      const task = { id: nextId++, expression, bindings: inputs.json, wantsInt, doubleClaims };
      if (inputs.json.length <= MAX_INLINE_INPUT_CHARS && runsInline(expression)) {
        // As a queued task would be: not run once its request has been answered.
        if (deadline !== undefined && deadline.at <= performance.now()) {
          return Promise.reject(
            new CelEvaluationError('timeout', 'the request was answered before the expression ran'),
          );
        }
        const result = runCelTask(task, inlineLimits);
        // Inputs nested deeper than this thread's stack takes still go to a worker, whose stack is larger.
        if (result.ok || result.overflow !== true) {
          return new Promise((resolve, reject) =>
            finish({ task, deadline, requeued: false, resolve, reject }, result),
          );
        }
      }
      // Workers start on first use: a verifier without CEL claims that need them never pays for them.
      start();
      if (failing()) return Promise.reject(cannotStart('no CEL worker could be started'));
      return new Promise((resolve, reject) => {
        queue.push({
          task,
          deadline,
          requeued: false,
          resolve,
          reject,
        });
        schedulePump();
      });
    },
    runsInline,
    workersFailing: failing,
    recheck() {
      for (const slot of slots) {
        if (slot.batch === undefined) continue;
        clearTimeout(slot.timer);
        slot.timer = undefined;
        watch(slot);
      }
    },
    async close() {
      closed = true;
      for (const pending of queue.splice(0)) {
        pending.reject(new CelEvaluationError('worker_failed', 'the CEL evaluator is closed'));
      }
      await Promise.all(
        slots.map((slot) => {
          clearTimeout(slot.restart);
          for (const pending of takeBatch(slot)) {
            pending.reject(new CelEvaluationError('worker_failed', 'closed'));
          }
          return retire(slot.worker);
        }),
      );
    },
  };
}

/** A worker's answer: the result is JSON text the worker has already measured against its limit. */
function finish(pending: Pending, result: CelTaskResult): void {
  if (result.ok) pending.resolve(JSON.parse(result.json));
  else if (result.reason === 'expired') {
    pending.reject(new CelEvaluationError('timeout', 'the request was answered before the expression ran'));
  } else pending.reject(new CelEvaluationError(result.reason, result.message));
}

// CEL evaluation off the request thread: a small worker pool with a time limit, a memory cap and size limits.
import { Worker } from 'node:worker_threads';
import type { CelTask, CelTaskResult } from './cel-worker.ts';

export interface CelLimits {
  readonly eval_timeout: number;
  readonly worker_count: number;
  readonly worker_memory_mb: number;
  readonly max_binding_json_bytes: number;
  readonly max_result_json_bytes: number;
}

export interface CelEvaluator {
  /** Starts the workers now rather than on the first evaluation. */
  warm(): void;
  /** Resolves with the JSON result; rejects with a CelEvaluationError on any failure or limit. */
  evaluate(expression: string, bindings: Readonly<Record<string, unknown>>): Promise<unknown>;
  close(): Promise<void>;
}

export class CelEvaluationError extends Error {
  readonly reason: 'error' | 'timeout' | 'too_large' | 'worker_failed';
  constructor(reason: CelEvaluationError['reason'], message: string) {
    super(message);
    this.name = 'CelEvaluationError';
    this.reason = reason;
  }
}

interface Pending {
  readonly task: CelTask;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current: (Pending & { timer: NodeJS.Timeout }) | undefined;
}

// Compiled (bin/build.js), the worker is a sibling .js module; from the sources it is TypeScript, and the worker
// registers the TypeScript loader itself (loader hooks are not inherited by worker threads).
const COMPILED = import.meta.url.endsWith('.js');
const WORKER_URL = new URL(COMPILED ? './cel-worker.js' : './cel-worker.ts', import.meta.url).href;
const WORKER_BOOTSTRAP = COMPILED
  ? `import(${JSON.stringify(WORKER_URL)});`
  : `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_URL)}); });`;

function spawnWorker(memoryMb: number): Worker {
  const worker = new Worker(WORKER_BOOTSTRAP, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.max(4, memoryMb / 8) },
    stdout: true,
    stderr: true,
  });
  worker.unref();
  return worker;
}

export function createCelEvaluator(limits: CelLimits): CelEvaluator {
  const slots: Slot[] = [];
  const queue: Pending[] = [];
  let nextId = 1;
  let closed = false;

  const settle = (slot: Slot, outcome: (pending: Pending) => void) => {
    const current = slot.current;
    if (!current) return;
    clearTimeout(current.timer);
    slot.current = undefined;
    outcome(current);
  };

  const replace = (slot: Slot, error: CelEvaluationError) => {
    settle(slot, (pending) => pending.reject(error));
    slot.worker.removeAllListeners();
    void slot.worker.terminate();
    if (!closed) attach(slot, spawnWorker(limits.worker_memory_mb));
  };

  const attach = (slot: Slot, worker: Worker) => {
    slot.worker = worker;
    slot.ready = false;
    worker.on('message', (result: CelTaskResult | { ready: true }) => {
      if ('ready' in result) {
        slot.ready = true;
        pump();
        return;
      }
      if (slot.current?.task.id !== result.id) return;
      settle(slot, (pending) => finish(pending, result, limits.max_result_json_bytes));
      pump();
    });
    worker.on('error', (error) => {
      replace(slot, new CelEvaluationError('worker_failed', `CEL worker failed: ${error.message}`));
      pump();
    });
    worker.on('exit', () => {
      if (slot.worker !== worker || closed) return;
      replace(slot, new CelEvaluationError('worker_failed', 'CEL worker exited'));
      pump();
    });
  };

  const pump = () => {
    for (const slot of slots) {
      if (!slot.ready || slot.current || queue.length === 0) continue;
      const pending = queue.shift() as Pending;
      const timer = setTimeout(() => {
        replace(slot, new CelEvaluationError('timeout', `CEL evaluation exceeded ${limits.eval_timeout}ms`));
        pump();
      }, limits.eval_timeout);
      slot.current = { ...pending, timer };
      slot.worker.postMessage(pending.task);
    }
  };

  const start = () => {
    while (!closed && slots.length < limits.worker_count) {
      const slot: Slot = { worker: undefined as unknown as Worker, ready: false, current: undefined };
      attach(slot, spawnWorker(limits.worker_memory_mb));
      slots.push(slot);
    }
  };

  return {
    warm: start,
    evaluate(expression, bindings) {
      if (closed)
        return Promise.reject(new CelEvaluationError('worker_failed', 'the CEL evaluator is closed'));
      const size = Buffer.byteLength(JSON.stringify(bindings), 'utf8');
      if (size > limits.max_binding_json_bytes) {
        return Promise.reject(
          new CelEvaluationError(
            'too_large',
            `CEL inputs are ${size} bytes, over ${limits.max_binding_json_bytes}`,
          ),
        );
      }
      // Workers start on first use: a verifier without CEL claims never pays for them.
      start();
      return new Promise((resolve, reject) => {
        queue.push({ task: { id: nextId++, expression, bindings }, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const pending of queue.splice(0)) {
        pending.reject(new CelEvaluationError('worker_failed', 'the CEL evaluator is closed'));
      }
      await Promise.all(
        slots.map((slot) => {
          settle(slot, (pending) => pending.reject(new CelEvaluationError('worker_failed', 'closed')));
          slot.worker.removeAllListeners();
          return slot.worker.terminate();
        }),
      );
    },
  };
}

function finish(pending: Pending, result: CelTaskResult, maxResultBytes: number): void {
  if (!result.ok) {
    pending.reject(new CelEvaluationError('error', result.message));
    return;
  }
  const size = Buffer.byteLength(JSON.stringify(result.value) ?? 'null', 'utf8');
  if (size > maxResultBytes) {
    pending.reject(
      new CelEvaluationError('too_large', `the CEL result is ${size} bytes, over ${maxResultBytes}`),
    );
    return;
  }
  pending.resolve(result.value);
}

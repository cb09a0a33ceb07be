// Starting and stopping one CEL worker thread, and how long the pool waits before starting again one that failed.
import { Worker } from 'node:worker_threads';
import type { CelWorkerData } from './run-cel-task.ts';

export interface CelWorkerLimits {
  readonly worker_memory_mb: number;
  readonly max_result_json_bytes: number;
}

// Compiled (bin/build.js), the worker is a sibling .js module; from the sources it is TypeScript, and the worker
// registers the TypeScript loader itself (loader hooks are not inherited by worker threads).
const COMPILED = import.meta.url.endsWith('.js');
const WORKER_URL = new URL(COMPILED ? './cel-worker.js' : './cel-worker.ts', import.meta.url).href;
export const CEL_WORKER_SOURCE = COMPILED
  ? `import(${JSON.stringify(WORKER_URL)});`
  : `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_URL)}); });`;

/** `source`: the script the thread runs (the worker module's loader unless a test gives another). */
export function spawnCelWorker(limits: CelWorkerLimits, progress: BigInt64Array, source: string): Worker {
  const memoryMb = limits.worker_memory_mb;
  const workerData: CelWorkerData = {
    progress: progress.buffer as SharedArrayBuffer,
    maxResultBytes: limits.max_result_json_bytes,
    maxBytesMade: memoryMb * 1024 * 1024,
  };
  const worker = new Worker(source, {
    eval: true,
    workerData,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.max(4, memoryMb / 8) },
    // Kept off the process's own streams (stdout may be the audit sink), and read to nothing: a worker's output
    // (a runtime warning) would otherwise pile up unread in the parent for the worker's whole life.
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  worker.unref();
  return worker;
}

/**
 * Stops a worker whose answers are no longer wanted. It may still report an error on its way out (out of memory
 * while it was being stopped): without a listener that would be an unhandled 'error' event, fatal to the process.
 */
export function retire(worker: Worker): Promise<number> {
  worker.removeAllListeners();
  worker.on('error', () => {});
  return worker.terminate();
}

/**
 * The wait before starting again a worker that failed `failures` starts in a row: 1 s, doubling up to 30 s. A start
 * that fails (a module that cannot load, no thread to be had) would fail the same way if tried again at once.
 */
export function restartDelayMs(failures: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));
}

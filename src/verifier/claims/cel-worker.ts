// Worker thread that evaluates CEL expressions, so a runaway expression can be stopped by terminating the thread.
// Tasks come in batches; before each task the worker notes in shared memory which one it is running and since when,
// so the pool can time each task on its own (create-cel-evaluator.ts).
//
// Inputs and results cross as JSON text: a structured clone of a deeply nested record overflows the stack (thrown
// where it is sent, or a message the receiver drops), where JSON.parse takes any depth; and a result is measured
// here, so one over its limit is never copied to the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { type CelTask, type CelTaskResult, type CelWorkerData, runCelTask } from './run-cel-task.ts';

export type { CelTask, CelTaskResult, CelWorkerData };

if (parentPort) {
  const port = parentPort;
  const { progress: shared, ...limits } = workerData as CelWorkerData;
  const progress = new BigInt64Array(shared);
  port.on('message', (tasks: readonly CelTask[]) => {
    const results: CelTaskResult[] = [];
    for (let index = 0; index < tasks.length; index++) {
      const task = tasks[index] as CelTask;
      const now = process.hrtime.bigint();
      if (task.expiresAt !== undefined && now >= task.expiresAt) {
        results.push({ id: task.id, ok: false, reason: 'expired', message: 'the request was answered' });
        continue;
      }
      // The start first: a reader that sees this index sees this start or a later one, never an earlier one.
      Atomics.store(progress, 1, now);
      Atomics.store(progress, 0, BigInt(index));
      results.push(runCelTask(task, limits));
    }
    port.postMessage(results);
  });
  // Tells the pool the module graph is loaded: evaluation time limits start only after this.
  port.postMessage({ ready: true });
}

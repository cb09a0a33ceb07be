// Worker thread that evaluates CEL expressions, so a runaway expression can be stopped by terminating the thread.
// Tasks come in batches; before each task the worker notes in shared memory which one it is running and since when,
// so the pool can time each task on its own (create-cel-evaluator.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { type CelInput, isCelError, parse, plan } from '@bufbuild/cel';
import { createCelEnv } from './cel-env.ts';
import { CelResultError, fromCelValue, toCelInput } from './cel-values.ts';

export interface CelTask {
  readonly id: number;
  readonly expression: string;
  readonly bindings: Readonly<Record<string, unknown>>;
  /** The claim's value is an integer: a double result (even `3.0`) is refused, since JSON cannot tell them apart. */
  readonly wantsInt?: boolean;
}

export type CelTaskResult =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string };

type Program = ReturnType<typeof plan>;
const MAX_PROGRAMS = 1000;
const env = createCelEnv();
const programs = new Map<string, Program>();

function programFor(expression: string): Program {
  let program = programs.get(expression);
  if (!program) {
    program = plan(env, parse(expression));
    if (programs.size >= MAX_PROGRAMS) programs.clear();
    programs.set(expression, program);
  }
  return program;
}

export function runCelTask(task: CelTask): CelTaskResult {
  try {
    const bindings = toCelInput(task.bindings) as Record<string, CelInput>;
    const result = programFor(task.expression)(bindings);
    if (isCelError(result)) return { id: task.id, ok: false, message: result.message };
    // @bufbuild/cel gives doubles as JS numbers and ints as bigints.
    if (task.wantsInt && typeof result === 'number') {
      return { id: task.id, ok: false, message: 'the result is a double, not the int the claim declares' };
    }
    return { id: task.id, ok: true, value: fromCelValue(result) };
  } catch (error) {
    const message = error instanceof CelResultError || error instanceof Error ? error.message : String(error);
    return { id: task.id, ok: false, message };
  }
}

/** Shared with the pool: [index of the task running, when it started (ms since the epoch)]. */
const progress = new BigInt64Array((workerData as { progress: SharedArrayBuffer }).progress);

parentPort?.on('message', (tasks: readonly CelTask[]) => {
  const results: CelTaskResult[] = [];
  for (let index = 0; index < tasks.length; index++) {
    // The start first: a reader that sees this index sees this start or a later one, never an earlier one.
    Atomics.store(progress, 1, BigInt(Date.now()));
    Atomics.store(progress, 0, BigInt(index));
    results.push(runCelTask(tasks[index] as CelTask));
  }
  parentPort?.postMessage(results);
});
// Tells the pool the module graph is loaded: evaluation time limits start only after this.
parentPort?.postMessage({ ready: true });

// Runs one CEL task: parses (once per expression) and evaluates it over its JSON bindings, and measures the result.
// The worker threads run every task through this; the evaluator runs bounded expressions (bounded-cel.ts) through it
// on the request thread, so both give the same answers and the same failures.
import { type CelInput, isCelError, parse, plan } from '@bufbuild/cel';
import { startBytesBudget } from './cel-bytes.ts';
import { createCelEnv } from './cel-env.ts';
import { claimValuesAsDoubles, fromCelValue, toCelInput } from './cel-values.ts';

export interface CelTask {
  readonly id: number;
  readonly expression: string;
  /** The bindings as JSON text. */
  readonly bindings: string;
  /** The claim's value is an integer: a double result (even `3.0`) is refused, since JSON cannot tell them apart. */
  readonly wantsInt?: boolean | undefined;
  /** Aliases of `claims` whose `value` is a double, even when whole (JSON wrote 100.0 as 100). */
  readonly doubleClaims?: readonly string[] | undefined;
  /**
   * In a worker: when its request is answered (process.hrtime, ns). A task reached later is not run: its answer is
   * no longer wanted, and it would hold the worker meanwhile.
   */
  readonly expiresAt?: bigint | undefined;
}

/** What the pool tells a worker when it starts it. */
export interface CelWorkerData {
  /** [index of the task running, when it started (process.hrtime, ns: monotonic, alike in every thread)]. */
  readonly progress: SharedArrayBuffer;
  readonly maxResultBytes: number;
  /** The most bytes values one evaluation may make (cel-bytes.ts). */
  readonly maxBytesMade: number;
}

export type CelTaskResult =
  | { readonly id: number; readonly ok: true; readonly json: string }
  | {
      readonly id: number;
      readonly ok: false;
      /** `expired`: not run, its request was answered before the worker reached it. */
      readonly reason: 'error' | 'too_large' | 'expired';
      readonly message: string;
      /** It ran out of stack: the request thread's is smaller than a worker's, where it may still succeed. */
      readonly overflow?: true;
    };

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

export function runCelTask(task: CelTask, limits: Omit<CelWorkerData, 'progress'>): CelTaskResult {
  const failed = (message: string, reason: 'error' | 'too_large' = 'error') =>
    ({ id: task.id, ok: false, reason, message }) as const;
  try {
    const bindings = toCelInput(JSON.parse(task.bindings)) as Record<string, CelInput>;
    if (task.doubleClaims) claimValuesAsDoubles(bindings.claims, task.doubleClaims);
    startBytesBudget(limits.maxBytesMade);
    const result = programFor(task.expression)(bindings);
    if (isCelError(result)) return failed(result.message);
    // @bufbuild/cel gives doubles as JS numbers and ints as bigints.
    if (task.wantsInt && typeof result === 'number') {
      return failed('the result is a double, not the int the claim declares');
    }
    const json = JSON.stringify(fromCelValue(result)) ?? 'null';
    const size = Buffer.byteLength(json, 'utf8');
    if (size > limits.maxResultBytes) {
      return failed(`the CEL result is ${size} bytes, over ${limits.maxResultBytes}`, 'too_large');
    }
    return { id: task.id, ok: true, json };
  } catch (error) {
    // A CelResultError, or a stack overflow on a value nested too deeply to convert.
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      return { ...failed(error.message), overflow: true };
    }
    return failed(error instanceof Error ? error.message : String(error));
  }
}

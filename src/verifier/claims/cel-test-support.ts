// What the CEL evaluator tests share.
import assert from 'node:assert/strict';
import { CelEvaluationError } from './create-cel-evaluator.ts';

/** The CelEvaluationError a promise rejects with; fails the test when it resolves or rejects otherwise. */
export async function rejection(promise: Promise<unknown>): Promise<CelEvaluationError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CelEvaluationError, String(error));
    return error;
  }
  assert.fail('expected a rejection');
}

/** CEL limits with one worker, for tests of rules rather than of the pool. */
export const ONE_WORKER_CEL = {
  eval_timeout: 2000,
  worker_count: 1,
  worker_memory_mb: 64,
  max_binding_json_bytes: 4096,
  max_result_json_bytes: 1024,
};

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

// What the CEL evaluator and claim rule tests share.
import assert from 'node:assert/strict';
import { fingerprintOf } from '../../platform/auth/api-key.ts';
import { loadVerifierConfigText } from '../config/load-verifier-config.ts';
import type { VerifierConfig } from '../config/schema.ts';
import { CelEvaluationError } from './create-cel-evaluator.ts';

/** A verifier config holding `claims` (YAML list items, four spaces in) and nothing else it needs to load. */
export function claimsConfig(claims: string): VerifierConfig {
  const text = `
auth: { mode: api_key, api_keys: [{ id: c, fingerprint: { provider: env, name: H } }] }
audit: { sink: stdout, hash_secret_env: S }
evidence:
  service_id: t
  claims:
${claims}`;
  return loadVerifierConfigText(text, { H: fingerprintOf('k'), S: 's'.repeat(32) }, '/tmp').config;
}

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

/** CEL limits with two workers and small values, for tests of the pool itself. */
export const TWO_WORKER_CEL = {
  eval_timeout: 2000,
  worker_count: 2,
  worker_memory_mb: 64,
  max_binding_json_bytes: 4096,
  max_result_json_bytes: 256,
};

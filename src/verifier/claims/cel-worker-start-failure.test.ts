// CEL workers that cannot start (their module fails to load, no thread can be made): the pool must neither spin
// starting new ones nor leave evaluations waiting for a worker that never comes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rejection, TWO_WORKER_CEL } from './cel-test-support.ts';
import { createCelEvaluator } from './create-cel-evaluator.ts';

const LIMITS = TWO_WORKER_CEL;

/** Goes to a worker: a comprehension is not bounded by its size (bounded-cel.ts). */
const POOLED = '[1, 2].map(v, v * 2)[1]';

describe('CEL evaluator whose workers cannot start', { timeout: 30_000 }, () => {
  it('refuses pooled work instead of holding it, retries each start after a pause, and says it is failing', async () => {
    const failures: { message: string; retryInMs: number }[] = [];
    const cel = createCelEvaluator(LIMITS, {
      workerSource: 'throw new Error("the CEL worker module cannot load")',
      onWorkerStartFailed: (message, retryInMs) => failures.push({ message, retryInMs }),
    });
    try {
      assert.equal(cel.workersFailing(), false, 'no worker was asked to start yet');
      // Queued until a worker is ready; refused once every worker has failed to start.
      const queued = await rejection(cel.evaluate(POOLED, {}));
      assert.equal(queued.reason, 'worker_failed');
      assert.match(queued.message, /cannot start/);
      assert.equal(cel.workersFailing(), true);
      assert.ok(failures.length >= LIMITS.worker_count, JSON.stringify(failures));
      assert.match(failures[0]?.message ?? '', /the CEL worker module cannot load/);
      // Each failed start waits before the next one rather than starting a new worker at once, again and again.
      assert.ok(
        failures.every((failure) => failure.retryInMs >= 1000),
        JSON.stringify(failures),
      );
      // While they fail, pooled work is refused at once; bounded expressions, which need no worker, still run.
      assert.equal((await rejection(cel.evaluate(POOLED, {}))).reason, 'worker_failed');
      assert.equal(await cel.evaluate('1 + 1', {}), 2);
    } finally {
      await cel.close();
    }
  });

  it('is not failing when its workers start', async () => {
    const cel = createCelEvaluator(LIMITS);
    try {
      assert.equal(await cel.evaluate(POOLED, {}), 4);
      assert.equal(cel.workersFailing(), false);
    } finally {
      await cel.close();
    }
  });
});

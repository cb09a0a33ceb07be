import assert from 'node:assert/strict';
import { it } from 'node:test';
import { capturedLog } from '../../../test/helpers/captured-log.ts';
import { verifierProblem } from '../problems.ts';
import { startPurging } from './create-evaluation-store.ts';
import type { EvaluationStore } from './evaluation-store.ts';

it('runs one purge at a time, and logs a failed one', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const { lines, logger } = capturedLog();
  let calls = 0;
  let finish: (error?: unknown) => void = () => {};
  const store = {
    purgeExpired: () => {
      calls++;
      return new Promise<number>((resolve, reject) => {
        finish = (error) => (error ? reject(error) : resolve(0));
      });
    },
  } as unknown as EvaluationStore;
  const stop = startPurging(store, 1_000, logger);
  try {
    t.mock.timers.tick(1_000);
    t.mock.timers.tick(1_000);
    assert.equal(calls, 1, 'a purge still running is not joined by another');
    finish(verifierProblem('state.unavailable', 'down'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.match(lines.join(''), /state store purge failed/);
    t.mock.timers.tick(1_000);
    assert.equal(calls, 2);
  } finally {
    stop();
  }
});

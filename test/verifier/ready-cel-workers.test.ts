// Readiness when the CEL workers cannot start (their module fails to load, no thread can be made): the verifier says
// it is not ready, and a claim whose rule needs a worker is refused at once instead of waiting for the request
// timeout. Claims whose rules run without a worker are still answered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { assertProblem } from '../helpers/http-checks.ts';
import { conformanceChecker, type OpenApiDocument } from '../helpers/openapi-conformance.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

/** A source-free claim whose rule (a comprehension) runs in a CEL worker. */
const POOLED_CLAIM = `  claims:
    - id: pooled
      title: Pooled
      version: "1"
      subject_type: person
      value: { type: boolean }
      rule: { type: cel, expression: "[ctx.target.type].all(t, t == 'person')" }
      disclosure: { default: predicate, allowed: [predicate] }
`;
/** The same, bounded by its size: it runs on the request thread. */
const INLINE_CLAIM = POOLED_CLAIM.replace('id: pooled', 'id: inline').replace(
  `"[ctx.target.type].all(t, t == 'person')"`,
  `"ctx.target.type == 'person'"`,
);
const TARGET = { type: 'person', id: 'p1' };
/** Where the worker module would be found: never to be told to a caller. */
const BROKEN_WORKER = 'throw new Error("cannot load /opt/ambit/dist/cel-worker.js")';

/** The first /ready answer other than 200: workers fail a moment after the start (15 s cap, as wait-until.ts has). */
async function readyAnswer(verifier: TestVerifier): Promise<Response> {
  const giveUp = Date.now() + 15_000;
  for (;;) {
    const ready = await verifier.get('/ready');
    if (ready.statusCode !== 200 || Date.now() > giveUp) return ready;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('verifier readiness while CEL workers cannot start', { timeout: 60_000 }, () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      edit: (text) => text.replace('  claims:\n', POOLED_CLAIM + INLINE_CLAIM.replace('  claims:\n', '')),
      deps: { celWorkerSource: BROKEN_WORKER },
    });
  });
  after(() => verifier?.close());

  it('answers /ready 503 without saying where or why, and refuses worker rules at once', async () => {
    const ready = await readyAnswer(verifier);
    const problem = assertProblem(ready, 503, 'readiness.not_ready');
    assert.deepEqual(problem.checks, { state: 'memory', state_ready: true, cel_workers_ready: false });
    assert.equal(ready.headers['retry-after'], '5');
    assert.doesNotMatch(ready.body, /opt|cel-worker|cannot load/);
    const openapi = JSON.parse((await verifier.get('/openapi.json', { as: 'full' })).body) as OpenApiDocument;
    conformanceChecker(openapi).check('GET', '/ready', ready);

    const pooled = await verifier.evaluate({ target: TARGET, claims: ['pooled'] });
    assertProblem(pooled, 500, 'claim.rule_evaluation_failed');
    assert.doesNotMatch(pooled.body, /opt|cel-worker|cannot load/);
    const inline = await verifier.evaluate({ target: TARGET, claims: ['inline'] });
    assert.equal(inline.statusCode, 200, inline.body);
    assert.equal(JSON.parse(inline.body).results[0].satisfied, true);
  });
});

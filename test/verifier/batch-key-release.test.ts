// The Idempotency-Key of a batch that failed with its state store is released in the background, retried while the
// store keeps failing; never past the store's close or the service's, whose timers would otherwise outlive them.
// A key the store took before its answer was lost is released too, and the store's precise reason is audited.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { FailureReason } from '../../src/verifier/connectors/failure-reason.ts';
import { verifierProblem } from '../../src/verifier/problems.ts';
import { createMemoryEvaluationStore } from '../../src/verifier/state/create-memory-evaluation-store.ts';
import type { EvaluationStore } from '../../src/verifier/state/evaluation-store.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

// No source is read: the one item fails before any read, and storing the batch then fails.
const NEVER_READ = 'http://127.0.0.1:9';
const BODY = { items: [{ target: { type: 'person' } }], claims: ['person_alive'] };

/** A small working memory store. */
function memoryStore(): EvaluationStore {
  return createMemoryEvaluationStore({
    clock: fixedClock('2026-03-01T10:00:00Z'),
    maxEntries: 10,
    maxEvaluationBytes: 1_048_576,
    maxIdempotencyRecords: 10,
    maxIdempotencyBytes: 1_048_576,
  });
}

/** A store that cannot store a batch nor release a key, counting the releases asked of it. */
function failingStore(): { store: EvaluationStore; releases: () => number } {
  const store = memoryStore();
  let releases = 0;
  const refuse = async (): Promise<never> => {
    throw verifierProblem('state.unavailable', 'The state store is unavailable; retry later.');
  };
  return {
    store: {
      ...store,
      putMany: refuse,
      abandonIdempotent: () => {
        releases++;
        return refuse();
      },
    },
    releases: () => releases,
  };
}

/** Lets the retry timers due in `seconds` fire, one second at a time, and what they start run. */
async function passSeconds(seconds: number): Promise<void> {
  for (let second = 0; second < seconds; second++) {
    mock.timers.tick(1_000);
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('releasing the key of a batch its store failed', () => {
  let failing: ReturnType<typeof failingStore>;
  let verifier: TestVerifier;
  let running: boolean;

  beforeEach(async () => {
    failing = failingStore();
    // A clock that stands still: the lease never runs out, so only a close stops the retries.
    verifier = await startTestVerifier({
      relays: { civil: NEVER_READ, social: NEVER_READ },
      clock: fixedClock('2026-03-01T10:00:00Z'),
      deps: { store: failing.store },
    });
    running = true;
    mock.timers.enable({ apis: ['setTimeout'] });
    const response = await verifier.post('/v1/batch-evaluations', BODY, {
      headers: { 'idempotency-key': 'store-failed' },
    });
    assertProblem(response, 503, 'state.unavailable');
    assert.equal(failing.releases(), 1, 'the release is tried once while the request is answered');
    await passSeconds(2);
    assert.equal(failing.releases(), 3, 'and again each second while the store fails');
  });

  afterEach(async () => {
    mock.timers.reset();
    if (running) await verifier.close();
  });

  it('stops retrying once the store is closed', async () => {
    await failing.store.close();
    await passSeconds(10);
    assert.equal(failing.releases(), 3);
  });

  it('stops retrying once the service is closed, the store with it', async () => {
    running = false;
    await verifier.close();
    await passSeconds(10);
    assert.equal(failing.releases(), 3);
  });
});

describe('a batch whose state store fails while its Idempotency-Key is claimed or completed', () => {
  const lost = () =>
    verifierProblem('state.unavailable', 'The state store is unavailable; retry later.', {
      cause: new FailureReason('state.econnreset', 'the connection was lost'),
    });

  /** A working memory store, except where `fail` says: those operations do their work, then report a failure. */
  function losingStore(fail: { begin?: boolean; complete?: boolean }): EvaluationStore {
    const store = memoryStore();
    return {
      ...store,
      async beginIdempotent(claim) {
        const outcome = await store.beginIdempotent(claim);
        if (fail.begin) {
          fail.begin = false;
          throw lost();
        }
        return outcome;
      },
      async completeIdempotent(...args) {
        if (fail.complete) {
          fail.complete = false;
          throw lost();
        }
        return store.completeIdempotent(...args);
      },
    };
  }

  async function batchOn(store: EvaluationStore): Promise<TestVerifier> {
    return startTestVerifier({
      relays: { civil: NEVER_READ, social: NEVER_READ },
      clock: fixedClock('2026-03-01T10:00:00Z'),
      deps: { store },
    });
  }

  it('frees a key the store took before its answer was lost, and audits the precise reason', async () => {
    const verifier = await batchOn(losingStore({ begin: true }));
    try {
      const headers = { 'idempotency-key': 'claim-answer-lost' };
      assertProblem(
        await verifier.post('/v1/batch-evaluations', BODY, { headers }),
        503,
        'state.unavailable',
      );
      const refused = verifier.auditRecords().findLast((record) => record.endpoint_kind === 'batch_evaluate');
      assert.equal(refused?.error_code, 'state.econnreset');
      // The key is free again: the retry runs rather than being told to wait.
      const retry = await verifier.post('/v1/batch-evaluations', BODY, { headers });
      assert.equal(retry.statusCode, 200, retry.body);
    } finally {
      await verifier.close();
    }
  });

  it('answers as audited when the response cannot be kept for replay, and frees the key', async () => {
    // The key is completed once the batch's records are written: they say 200, and so does the answer.
    const verifier = await batchOn(losingStore({ complete: true }));
    try {
      const headers = { 'idempotency-key': 'completion-lost' };
      const first = await verifier.post('/v1/batch-evaluations', BODY, { headers });
      assert.equal(first.statusCode, 200, first.body);
      const recorded = verifier
        .auditRecords()
        .findLast((record) => record.endpoint_kind === 'batch_evaluate');
      assert.equal(recorded?.status, 200);
      assert.equal(recorded?.idempotency, 'new');
      // The key is free again: the retry runs afresh rather than being told to wait, or replaying.
      const retry = await verifier.post('/v1/batch-evaluations', BODY, { headers });
      assert.equal(retry.statusCode, 200, retry.body);
      assert.equal(retry.headers['idempotent-replayed'], undefined);
      assert.notEqual(JSON.parse(retry.body).batch_id, JSON.parse(first.body).batch_id);
    } finally {
      await verifier.close();
    }
  });
});

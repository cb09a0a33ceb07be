// An Idempotency-Key is completed for replay only once the batch's audit records are written. While they are being
// written, the same request (on the instance running it, or on another sharing its PostgreSQL store) is told the
// first is still running; when they fail (`fail_closed`), the first answers 500 and no request with its key ever
// gets the 200 the trail never recorded: a retry runs afresh. Under `availability_first` the answer stands, and so
// does its replay. The audit sink here is one the test answers by hand (standard output handed to another writer).
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import type { DeferredAuditSink } from '../../src/platform/audit/sinks/audit-sink.ts';
import { handStdoutAuditTo } from '../../src/platform/audit/sinks/stdout-sink.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createMemoryEvaluationStore } from '../../src/verifier/state/create-memory-evaluation-store.ts';
import type { EvaluationStore, IdempotencyOutcome } from '../../src/verifier/state/evaluation-store.ts';
import { countingReads, oneLivingPerson } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { freshDatabases } from '../helpers/postgres-harness.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';
import { until } from '../helpers/wait-until.ts';

const BATCH = '/v1/batch-evaluations';
const BODY = {
  items: [{ target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] } }],
  claims: ['person_alive'],
};

interface HeldAppend {
  readonly records: Record<string, unknown>[];
  answer(error?: unknown): void;
}

/** Standard output audit appends, each held until the test answers it. */
function handSink() {
  const appends: HeldAppend[] = [];
  const sink: DeferredAuditSink = {
    deferred: true,
    // Never reached: the test answers every append.
    answerTimeoutMs: 600_000,
    append(text, done) {
      const lines = text.split('\n').filter((line) => line !== '');
      appends.push({ records: lines.map((line) => JSON.parse(line).record), answer: done });
    },
    async close() {},
  };
  return { sink, appends };
}

/** The harness config with the audit on standard output, and `extra` lines in the audit block. */
const auditOnStdout =
  (extra = '', then: (text: string) => string = (text) => text) =>
  (text: string) =>
    then(text.replace(/^ {2}sink: jsonl\n {2}path: .*\n/m, `  sink: stdout\n${extra}`));

const onPostgres = (text: string) =>
  `${text}\nstate:\n  storage: postgresql\n  postgresql: { url_env: STATE_URL, connect_timeout: 5s, operation_timeout: 10s }\n`;

/** The batch event among an append's records. */
function batchEvent(append: HeldAppend | undefined): Record<string, unknown> | undefined {
  return append?.records.find((record) => record.endpoint_kind === 'batch_evaluate');
}

/** A memory store telling the outcome of each key claimed; its releases take `releaseMs` to answer. */
function watchedMemoryStore(releaseMs = 0) {
  const store = createMemoryEvaluationStore({
    clock: systemClock,
    maxEntries: 100,
    maxEvaluationBytes: 1_048_576,
    maxIdempotencyRecords: 100,
    maxIdempotencyBytes: 1_048_576,
  });
  const outcomes: IdempotencyOutcome['kind'][] = [];
  const watched: EvaluationStore = {
    ...store,
    async beginIdempotent(claim) {
      const outcome = await store.beginIdempotent(claim);
      outcomes.push(outcome.kind);
      return outcome;
    },
    async abandonIdempotent(scope, owner) {
      await new Promise((resolve) => setTimeout(resolve, releaseMs));
      return store.abandonIdempotent(scope, owner);
    },
  };
  return { store: watched, outcomes };
}

describe('a batch Idempotency-Key and the audit write of its response', () => {
  let upstream: FakeUpstream;
  const counted = countingReads(oneLivingPerson);
  let hand: ReturnType<typeof handSink>;
  let restore: () => void;
  const started: TestVerifier[] = [];
  const freshDatabase = freshDatabases();

  before(async () => {
    upstream = await startFakeUpstream(counted.handler);
  });
  after(async () => {
    await upstream?.close();
  });
  beforeEach(() => {
    hand = handSink();
    restore = handStdoutAuditTo(() => hand.sink);
  });
  afterEach(async () => {
    // Whatever is still held is written, so that the instances drain and close.
    for (const append of hand.appends) append.answer();
    await Promise.all(started.splice(0).map((verifier) => verifier.close()));
    restore();
  });

  const start = async (options: Parameters<typeof startTestVerifier>[0]) => {
    const verifier = await startTestVerifier({ relays: { civil: upstream.url }, ...options });
    started.push(verifier);
    return verifier;
  };
  /**
   * Sends the batch with `key`; when `verifier` audits through the held sink, answers the append its answer waits
   * for (written, or failed with `failure`). Sent once: the key of a batch answered 500 is released before that
   * answer goes out, so a retry straight after it is never told the first is still running.
   */
  const send = async (
    verifier: TestVerifier,
    key: string,
    held: boolean,
    failure?: Error,
  ): Promise<Response> => {
    const count = hand.appends.length;
    const sent = verifier.post(BATCH, BODY, { headers: { 'idempotency-key': key } });
    if (held) {
      await until('the request hands its record over', () => hand.appends.length > count);
      (hand.appends[count] as HeldAppend).answer(failure);
    }
    return sent;
  };

  it('memory store: the same request while the records are written waits, and after they fail runs afresh', async () => {
    const { store, outcomes } = watchedMemoryStore();
    const verifier = await start({ edit: auditOnStdout(), deps: { store } });
    const key = 'unaudited-memory';
    const reads = counted.reads();

    const first = verifier.post(BATCH, BODY, { headers: { 'idempotency-key': key } });
    await until('the first batch hands its records over', () => hand.appends.length === 1);
    assert.equal(batchEvent(hand.appends[0])?.idempotency, 'new');
    const second = verifier.post(BATCH, BODY, { headers: { 'idempotency-key': key } });
    await until('the second request has asked for the key', () => outcomes.length === 2);
    assert.deepEqual(outcomes, ['started', 'in_progress'], 'no replay of a response not yet recorded');

    (hand.appends[0] as HeldAppend).answer(new Error('EIO: the audit disk failed'));
    assertProblem(await first, 500, 'audit.write_failed');
    // The second request's record was queued behind the failed append.
    await until('the second request hands its record over', () => hand.appends.length === 2);
    (hand.appends[1] as HeldAppend).answer();
    const problem = assertProblem(await second, 409, 'idempotency.conflict');
    assert.match(String(problem.detail), /still running/);
    assert.equal(batchEvent(hand.appends[1])?.idempotency, 'conflict');

    // The key is free again: the retry reads its source and answers a batch of its own, recorded as new.
    const retry = await send(verifier, key, true);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(counted.reads(), reads + 2);
    const recorded = batchEvent(hand.appends.at(-1));
    assert.equal(recorded?.idempotency, 'new');
    assert.equal(recorded?.batch_id, JSON.parse(retry.body).batch_id);
  });

  it('PostgreSQL store: another instance never replays a response whose records failed', async () => {
    const database = await freshDatabase();
    const env = { STATE_URL: database.url };
    // A writes its records through the held sink; B to its own file, at once.
    const a = await start({ edit: auditOnStdout('', onPostgres), env });
    const b = await start({ edit: onPostgres, env });
    const key = 'unaudited-postgres';
    const reads = counted.reads();

    const first = a.post(BATCH, BODY, { headers: { 'idempotency-key': key } });
    await until('the first batch hands its records over', () => hand.appends.length === 1);
    const meanwhile = await b.post(BATCH, BODY, { headers: { 'idempotency-key': key } });
    const problem = assertProblem(meanwhile, 409, 'idempotency.conflict');
    assert.match(String(problem.detail), /still running/);

    (hand.appends[0] as HeldAppend).answer(new Error('EIO: the audit disk failed'));
    assertProblem(await first, 500, 'audit.write_failed');
    const retry = await send(b, key, false);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(counted.reads(), reads + 2, 'the retry ran the batch again');
    // What B answered stands in its trail, and a replay on A answers the same, recorded as a replay.
    const recorded = b.auditRecords().findLast((record) => record.endpoint_kind === 'batch_evaluate');
    assert.equal(recorded?.idempotency, 'new');
    assert.equal(recorded?.status, 200);
    const replayed = await send(a, key, true);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assert.equal(replayed.body, retry.body);
    const replayEvent = batchEvent(hand.appends.at(-1));
    assert.equal(replayEvent?.idempotency, 'replayed');
    assert.equal(replayEvent?.batch_id, JSON.parse(retry.body).batch_id);
    // A replay whose own record fails answers 500; the key stays, as what it replays was recorded.
    assertProblem(await send(a, key, true, new Error('EIO')), 500, 'audit.write_failed');
    const again = await send(b, key, false);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, retry.body);
    assert.equal(counted.reads(), reads + 2, 'no replay read anything');
  });

  it('a retry straight after the 500 runs afresh, however long the release takes', async () => {
    const { store, outcomes } = watchedMemoryStore(200);
    const verifier = await start({ edit: auditOnStdout(), deps: { store } });
    const key = 'slow-release';
    assertProblem(await send(verifier, key, true, new Error('EIO')), 500, 'audit.write_failed');
    const retry = await send(verifier, key, true);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.deepEqual(outcomes, ['started', 'started']);
  });

  it('availability_first: an answer sent without its records is kept for replay as sent', async () => {
    const { store } = watchedMemoryStore();
    const verifier = await start({
      edit: auditOnStdout('  write_policy: availability_first\n'),
      deps: { store },
    });
    const key = 'unaudited-available';
    const first = verifier.post(BATCH, BODY, { headers: { 'idempotency-key': key } });
    await until('the first batch hands its records over', () => hand.appends.length === 1);
    (hand.appends[0] as HeldAppend).answer(new Error('EIO: the audit disk failed'));
    const answered = await first;
    assert.equal(answered.statusCode, 200, answered.body);
    const replayed = await send(verifier, key, true);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assert.equal(replayed.body, answered.body);
    assert.equal(batchEvent(hand.appends.at(-1))?.idempotency, 'replayed');
  });
});

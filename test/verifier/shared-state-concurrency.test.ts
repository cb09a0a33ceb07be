// Two verifier instances, each with its own pool, on one PostgreSQL state store, asked at the same moment: an
// Idempotency-Key runs its batch once across both, a different body under it is refused, keys of different
// callers never meet, and expiry and purge judged on one instance agree with the other.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { fixedClock } from '../../src/platform/clock.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { freshDatabases } from '../helpers/postgres-harness.ts';
import { type Caller, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const BATCH = '/v1/batch-evaluations';
const ROUNDS = 12;

const person = (id: string) => ({ type: 'person', identifiers: [{ scheme: 'national_id', value: id }] });

/**
 * Answers every read with a living person of the asked national id, counting the reads of each id. The first read
 * of an id given to `hold` gets no answer until `release` (a request that never ends, as seen from outside).
 */
function countingRelay() {
  const reads = new Map<string, number>();
  const held = new Set<string>();
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const handler = async (request: IncomingMessage, response: ServerResponse) => {
    const id = new URL(request.url ?? '', 'http://x').searchParams.get('national_id') ?? '';
    reads.set(id, (reads.get(id) ?? 0) + 1);
    if (held.delete(id)) await released;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ data: [{ national_id: id, deceased: false }] }));
  };
  return { handler, reads: (id: string) => reads.get(id) ?? 0, hold: (id: string) => held.add(id), release };
}

const onPostgres =
  (extra = '') =>
  (text: string) =>
    `${text}\nstate:\n  storage: postgresql\n${extra}  postgresql: { url_env: STATE_URL, connect_timeout: 5s, operation_timeout: 10s }\n`;

/** The batches that ran on either instance: their batch events with a fresh (not replayed) key. */
function executed(instances: readonly TestVerifier[], kind = 'batch_evaluate') {
  return instances.flatMap((instance) =>
    instance.auditRecords().filter((record) => record.endpoint_kind === kind),
  );
}

/** A replay answers what the first request answered; a request racing the running one is told to retry. */
function assertReplayOrRetry(answer: Response, first: Response): void {
  if (answer.statusCode === 200) {
    assert.equal(answer.headers['idempotent-replayed'], 'true');
    assert.equal(answer.body, first.body);
    return;
  }
  const problem = assertProblem(answer, 409, 'idempotency.conflict');
  assert.match(String(problem.detail), /still running/);
  assert.equal(answer.headers['retry-after'], '1');
}

describe('two verifier instances sharing a PostgreSQL state store', () => {
  const freshDatabase = freshDatabases();
  let upstream: FakeUpstream;
  let relay = countingRelay();
  let instances: TestVerifier[] = [];

  before(async () => {
    upstream = await startFakeUpstream((request, response) => relay.handler(request, response));
  });
  after(async () => {
    await upstream?.close();
  });

  const startPair = async (options: { extra?: string; clocks?: ReturnType<typeof fixedClock>[] } = {}) => {
    relay = countingRelay();
    // A database of its own: what another test stored cannot count in this one's purge.
    const database = await freshDatabase();
    instances = await Promise.all(
      [0, 1].map((index) =>
        startTestVerifier({
          relays: { civil: upstream.url },
          edit: onPostgres(options.extra),
          env: { STATE_URL: database.url },
          ...(options.clocks ? { clock: options.clocks[index] } : {}),
        }),
      ),
    );
    return instances as [TestVerifier, TestVerifier];
  };
  const stopPair = async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    instances = [];
  };

  it('runs a batch once when the same key and body reach both instances at once; the other replays or waits', async () => {
    const [a, b] = await startPair();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const id = `RACE-SAME-${round}`;
        const body = { items: [{ target: person(id) }], claims: ['person_alive'] };
        const headers = { 'idempotency-key': `same-${round}` };
        const answers = await Promise.all([
          a.post(BATCH, body, { headers }),
          b.post(BATCH, body, { headers }),
        ]);
        const ran = answers.filter(
          (answer) => answer.statusCode === 200 && !answer.headers['idempotent-replayed'],
        );
        assert.equal(
          ran.length,
          1,
          answers.map((answer) => `${answer.statusCode} ${answer.body}`).join('\n'),
        );
        const first = ran[0] as Response;
        for (const answer of answers) if (answer !== first) assertReplayOrRetry(answer, first);
        assert.equal(relay.reads(id), 1, `one read of ${id}`);
        // Once done, either instance replays it.
        for (const instance of [a, b]) {
          const replay = await instance.post(BATCH, body, { headers });
          assert.equal(replay.headers['idempotent-replayed'], 'true');
          assert.equal(replay.body, first.body);
        }
      }
      const batches = executed([a, b]).filter((record) => record.idempotency === 'new');
      assert.equal(batches.length, ROUNDS);
      assert.equal(executed([a, b], 'batch_item').length, ROUNDS, 'one item event per batch that ran');
    } finally {
      await stopPair();
    }
  });

  it('refuses a different body under a key another instance is running or ran, and runs only the first', async () => {
    const [a, b] = await startPair();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const ids = [`RACE-DIFF-A-${round}`, `RACE-DIFF-B-${round}`];
        const headers = { 'idempotency-key': `diff-${round}` };
        const answers = await Promise.all(
          [a, b].map((instance, index) =>
            instance.post(
              BATCH,
              { items: [{ target: person(ids[index] as string) }], claims: ['person_alive'] },
              {
                headers,
              },
            ),
          ),
        );
        const statuses = answers.map((answer) => answer.statusCode).sort();
        assert.deepEqual(statuses, [200, 409], answers.map((answer) => answer.body).join('\n'));
        const refused = answers.find((answer) => answer.statusCode === 409) as Response;
        assertProblem(refused, 409, 'idempotency.conflict');
        assert.equal(relay.reads(ids[0] as string) + relay.reads(ids[1] as string), 1);
      }
    } finally {
      await stopPair();
    }
  });

  it('keeps one caller key apart from another caller: both run, and each replays only its own response', async () => {
    const [a, b] = await startPair();
    try {
      const body = { items: [{ target: person('RACE-CALLERS') }], claims: ['person_alive'] };
      const headers = { 'idempotency-key': 'shared-by-two-callers' };
      const callers: Caller[] = ['full', 'civil_only'];
      const answers = await Promise.all([
        a.post(BATCH, body, { as: 'full', headers }),
        b.post(BATCH, body, { as: 'civil_only', headers }),
      ]);
      for (const answer of answers) {
        assert.equal(answer.statusCode, 200, answer.body);
        assert.equal(answer.headers['idempotent-replayed'], undefined);
      }
      assert.notEqual(JSON.parse(answers[0].body).batch_id, JSON.parse(answers[1].body).batch_id);
      assert.equal(relay.reads('RACE-CALLERS'), 2);
      for (const [index, as] of callers.entries()) {
        for (const instance of [a, b]) {
          const replay = await instance.post(BATCH, body, { as, headers });
          assert.equal(replay.headers['idempotent-replayed'], 'true');
          assert.equal(replay.body, answers[index]?.body);
        }
      }
      // Each caller's item renders for that caller only, on either instance.
      const item = JSON.parse(answers[0].body).items[0].evaluation_id;
      assert.equal((await b.post(`/v1/evaluations/${item}/render`, {}, { as: 'full' })).statusCode, 200);
      assertProblem(
        await b.post(`/v1/evaluations/${item}/render`, {}, { as: 'civil_only' }),
        404,
        'evaluation.not_found',
      );
    } finally {
      await stopPair();
    }
  });

  it('lets another instance take over the key of one that went silent mid-batch once its lease ends, and not before', async () => {
    const start = Date.parse('2026-04-01T10:00:00Z');
    const clocks = [fixedClock(new Date(start).toISOString()), fixedClock(new Date(start).toISOString())];
    const [a, b] = await startPair({ clocks });
    const silent = relay;
    try {
      const body = { items: [{ target: person('SILENT-1') }], claims: ['person_alive'] };
      const headers = { 'idempotency-key': 'silent-owner' };
      // A claims the key, then goes silent as an instance killed mid-batch does: nothing releases the key.
      silent.hold('SILENT-1');
      const first = a.post(BATCH, body, { headers });
      while (silent.reads('SILENT-1') === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      // Until the lease ends (server.request_timeout, 30 s here, plus 5 s), B refuses the key as still running.
      clocks[1]?.advance(34_000);
      const waiting = await b.post(BATCH, body, { headers });
      assert.match(String(assertProblem(waiting, 409, 'idempotency.conflict').detail), /still running/);
      assert.equal(waiting.headers['retry-after'], '1');
      assert.equal(silent.reads('SILENT-1'), 1);
      // Then B takes the key over and runs the batch.
      clocks[1]?.advance(2_000);
      const taken = await b.post(BATCH, body, { headers });
      assert.equal(taken.statusCode, 200, taken.body);
      assert.equal(taken.headers['idempotent-replayed'], undefined);
      assert.equal(silent.reads('SILENT-1'), 2);
      // The first owner answering late does not replace what B keeps for replay.
      silent.release();
      assert.equal((await first).statusCode, 200);
      const replay = await a.post(BATCH, body, { headers });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, taken.body);
    } finally {
      silent.release();
      await stopPair();
    }
  });

  it('agrees on expiry: B no longer renders what A made past its retention, and a purge by B keeps what has not expired', async () => {
    const start = Date.parse('2026-04-01T10:00:00Z');
    const clocks = [fixedClock(new Date(start).toISOString()), fixedClock(new Date(start).toISOString())];
    const [a, b] = await startPair({ extra: '  evaluation_retention: 1m\n', clocks });
    const advance = (ms: number) => {
      for (const clock of clocks) clock.advance(ms);
    };
    try {
      const made = async () => {
        const answer = await a.evaluate({ target: person('EXPIRY-1'), claims: ['person_alive'] });
        assert.equal(answer.statusCode, 200, answer.body);
        return JSON.parse(answer.body).results[0].evaluation_id as string;
      };
      const older = await made();
      advance(30_000);
      const newer = await made();
      assert.equal((await b.post(`/v1/evaluations/${older}/render`, {})).statusCode, 200);
      advance(30_000);
      // The first is past its retention on either instance, purged or not.
      assertProblem(await b.post(`/v1/evaluations/${older}/render`, {}), 404, 'evaluation.not_found');
      assert.equal(await b.verifier.runtime.store.purgeExpired(), 1);
      assertProblem(await a.post(`/v1/evaluations/${older}/render`, {}), 404, 'evaluation.not_found');
      assert.equal((await a.post(`/v1/evaluations/${newer}/render`, {})).statusCode, 200);
      assert.equal((await b.post(`/v1/evaluations/${newer}/render`, {})).statusCode, 200);
      assertProblem(
        await b.post(`/v1/evaluations/${newer}/render`, {}, { as: 'civil_only' }),
        404,
        'evaluation.not_found',
      );
    } finally {
      await stopPair();
    }
  });
});

// The verifier over its PostgreSQL state store, through HTTP: 503 problems (never a crash) while the database is
// unreachable and recovery once it is back; and a batch idempotency key held by a running request.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { CuttableProxy } from '../helpers/cuttable-proxy.ts';
import { oneLivingPerson } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { CCCEV, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
const BATCH = '/v1/batch-evaluations';

/** An upstream that answers one row only once released; `reached` settles when the first read arrives. */
function holdUpstream() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let reads = 0;
  const handler = (_request: IncomingMessage, response: ServerResponse) => {
    reads++;
    arrived();
    void gate.then(() => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ national_id: 'FAKE-1', deceased: false }] }));
    });
  };
  return { handler, release, reached, reads: () => reads };
}

/**
 * Waits until the held upstream is read; a request answered before it read anything (its state store slow or
 * unreachable) fails the test with its answer, instead of leaving it waiting for a read that never comes.
 */
async function untilRead(reached: Promise<void>, request: Promise<{ statusCode: number; body: string }>) {
  await Promise.race([
    reached,
    request.then((answer) => {
      throw new Error(`answered ${answer.statusCode} before reading its source: ${answer.body}`);
    }),
  ]);
}

// An outage here is a cut proxy, which fails connections and queries at once: the time limits only have to be
// long enough that a slow machine does not make a healthy claim or store time out.
function postgresState(text: string): string {
  return `${text}\nstate:\n  storage: postgresql\n  postgresql: { url_env: STATE_URL, connect_timeout: 5s, operation_timeout: 10s }\n`;
}

describe('verifier state over PostgreSQL, through HTTP', () => {
  let upstream: FakeUpstream;
  let handler: (request: IncomingMessage, response: ServerResponse) => void;
  let database: TestDatabase;
  let upstreamUrl: string;

  before(async () => {
    upstream = await startFakeUpstream((request, response) => handler(request, response));
    upstreamUrl = upstream.url;
    handler = oneLivingPerson;
    database = await openTestDatabase();
  });
  after(async () => {
    await database?.close();
    await upstream.close();
  });

  /** A verifier keeping its state in the test database. */
  const onDatabase = () =>
    startTestVerifier({
      relays: { civil: upstreamUrl, social: upstreamUrl },
      edit: postgresState,
      env: { STATE_URL: database.url },
    });

  it('answers 503 while PostgreSQL is unreachable, keeps serving what needs no state, and recovers', async () => {
    const url = new URL(database.url);
    const proxy = new CuttableProxy(url.hostname, Number(url.port || 5432));
    await proxy.open();
    const viaProxy = new URL(database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    await proxy.cut();
    // Started while the database is unreachable: it starts anyway.
    const clock = fixedClock('2026-03-01T10:00:00Z');
    const verifier: TestVerifier = await startTestVerifier({
      relays: { civil: upstreamUrl, social: upstreamUrl },
      clock,
      edit: postgresState,
      env: { STATE_URL: viaProxy.toString() },
    });
    try {
      assert.equal((await verifier.get('/healthz')).statusCode, 200);
      const ready = assertProblem(await verifier.get('/ready'), 503, 'readiness.not_ready');
      assert.deepEqual(ready.checks, { state: 'postgresql', state_ready: false });
      assert.equal((await verifier.get('/v1/claims', { as: 'full' })).statusCode, 200);
      const evaluation = await verifier.evaluate({ target: TARGET, claims: ['person_alive'] });
      const problem = assertProblem(evaluation, 503, 'state.unavailable');
      assert.equal(evaluation.headers['retry-after'], '1');
      assert.ok(!JSON.stringify(problem).includes(viaProxy.host), 'the database address is not disclosed');
      assertProblem(
        await verifier.post(BATCH, { items: [{ target: TARGET }], claims: ['person_alive'] }),
        503,
        'state.unavailable',
      );
      assertProblem(
        await verifier.post(
          BATCH,
          { items: [{ target: TARGET }], claims: ['person_alive'] },
          {
            headers: { 'idempotency-key': 'while-down' },
          },
        ),
        503,
        'state.unavailable',
      );
      // The key was sent: the batch event says the store could not be asked, not that no key came.
      const keyed = verifier.auditRecords().findLast((entry) => entry.endpoint_kind === 'batch_evaluate');
      assert.equal(keyed?.idempotency, 'unavailable');
      assertProblem(
        await verifier.post('/v1/evaluations/01J0000000000000000000000Z/render', {}),
        503,
        'state.unavailable',
      );
      // A render's audit event keeps the precise reason too, as an evaluation's does.
      const rendered = verifier.auditRecords().findLast((entry) => entry.endpoint_kind === 'render');
      assert.equal(rendered?.problem_code, 'state.unavailable');
      assert.match(String(rendered?.error_code), /^state\.(?!unavailable$)/);
      const record = verifier.auditRecords().findLast((entry) => entry.endpoint_kind === 'evaluate');
      assert.equal(record?.problem_code, 'state.unavailable');
      assert.match(String(record?.error_code), /^state\./);

      // The database comes back (migrations run then), and so does the service.
      await proxy.open();
      // Reconnection attempts are spaced out (a second apart) so an outage is not a connection storm.
      clock.advance(1_000);
      const readyAgain = await verifier.get('/ready');
      assert.equal(readyAgain.statusCode, 200, readyAgain.body);
      const made = await verifier.evaluate({ target: TARGET, claims: ['person_alive'] });
      assert.equal(made.statusCode, 200, made.body);
      const id = JSON.parse(made.body).results[0].evaluation_id;
      assert.equal((await verifier.post(`/v1/evaluations/${id}/render`, {})).statusCode, 200);

      // And goes away again while the service runs.
      await proxy.cut();
      assertProblem(await verifier.post(`/v1/evaluations/${id}/render`, {}), 503, 'state.unavailable');
      await proxy.open();
      // Known to be down, the store is tried again a second later, by renders as by evaluations.
      assertProblem(await verifier.post(`/v1/evaluations/${id}/render`, {}), 503, 'state.unavailable');
      clock.advance(1_000);
      const back = await verifier.post(`/v1/evaluations/${id}/render`, {});
      assert.equal(back.statusCode, 200, back.body);
    } finally {
      await verifier.close();
      await proxy.cut();
    }
  });

  it('renders an evaluation byte for byte as it was answered, in either format', async () => {
    handler = oneLivingPerson;
    const verifier = await onDatabase();
    try {
      const json = await verifier.evaluate({ target: TARGET, claims: ['person_alive'], disclosure: 'value' });
      assert.equal(json.statusCode, 200, json.body);
      const cccev = await verifier.evaluate(
        { target: TARGET, claims: ['person_alive'] },
        { headers: { accept: CCCEV } },
      );
      assert.equal(cccev.statusCode, 200, cccev.body);
      for (const [made, id] of [
        [json, JSON.parse(json.body).results[0].evaluation_id],
        [cccev, JSON.parse(cccev.body)['@graph'][0]['dcterms:identifier']],
      ] as const) {
        const rendered = await verifier.post(`/v1/evaluations/${id}/render`, undefined);
        assert.equal(rendered.statusCode, 200, rendered.body);
        assert.equal(rendered.headers['content-type'], made.headers['content-type']);
        assert.equal(rendered.body, made.body);
      }
    } finally {
      await verifier.close();
    }
  });

  it('keeps an Idempotency-Key only as a keyed hash: a key made of an identifier cannot be found by trying them', async () => {
    handler = oneLivingPerson;
    const verifier = await onDatabase();
    try {
      // Clients often derive keys from what the batch is about: here a national id.
      const key = 'benefit-review-FAKE-412781';
      const body = { items: [{ target: TARGET }], claims: ['person_alive'] };
      const made = await verifier.post(BATCH, body, { headers: { 'idempotency-key': key } });
      assert.equal(made.statusCode, 200, made.body);
      const { rows } = await database.query<{ scope: string }>(
        'SELECT scope FROM ambit_verifier.idempotency_records',
      );
      assert.equal(rows.length, 1);
      const unkeyed = createHash('sha256').update(key, 'utf8').digest('hex');
      for (const row of rows) {
        assert.ok(!row.scope.includes(unkeyed), 'no unkeyed digest of the key');
        assert.ok(!row.scope.includes(key));
      }
      const replay = await verifier.post(BATCH, body, { headers: { 'idempotency-key': key } });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, made.body);
    } finally {
      await verifier.close();
    }
  });

  it('holds an idempotency key for its running request: the same request meanwhile is told to retry', async () => {
    const verifier = await onDatabase();
    const held = holdUpstream();
    handler = held.handler;
    const { release, reached } = held;
    try {
      const body = { items: [{ target: TARGET }], claims: ['person_alive'] };
      const headers = { 'idempotency-key': 'slow-key-1' };
      const first = verifier.post(BATCH, body, { headers });
      await untilRead(reached, first);
      const meanwhile = await verifier.post(BATCH, body, { headers });
      const problem = assertProblem(meanwhile, 409, 'idempotency.conflict');
      assert.match(String(problem.detail), /still running/);
      assert.equal(meanwhile.headers['retry-after'], '1');
      release();
      const done = await first;
      assert.equal(done.statusCode, 200, done.body);
      const replay = await verifier.post(BATCH, body, { headers });
      assert.equal(replay.body, done.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
    } finally {
      release();
      await verifier.close();
    }
  });

  it('releases the key of a batch that failed with its database once the database is back', async () => {
    const url = new URL(database.url);
    const proxy = new CuttableProxy(url.hostname, Number(url.port || 5432));
    await proxy.open();
    const viaProxy = new URL(database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const verifier = await startTestVerifier({
      relays: { civil: upstreamUrl, social: upstreamUrl },
      edit: postgresState,
      env: { STATE_URL: viaProxy.toString() },
    });
    const held = holdUpstream();
    handler = held.handler;
    try {
      const body = { items: [{ target: TARGET }], claims: ['person_alive'] };
      const headers = { 'idempotency-key': 'failed-with-its-database' };
      const first = verifier.post(BATCH, body, { headers });
      await untilRead(held.reached, first);
      // The key is claimed; the database goes away before the batch can store anything or release the key.
      await proxy.cut();
      held.release();
      assertProblem(await first, 503, 'state.unavailable');
      await proxy.open();
      // The release is tried again in the background; a retry then runs instead of being told to wait ~35 s.
      // Until the store has answered again, a retry is refused before it reads (state.unavailable).
      let retry = await verifier.post(BATCH, body, { headers });
      for (let attempt = 0; attempt < 40 && retry.statusCode !== 200; attempt++) {
        const code = retry.statusCode === 503 ? 'state.unavailable' : 'idempotency.conflict';
        assertProblem(retry, retry.statusCode, code);
        await new Promise((resolve) => setTimeout(resolve, 250));
        retry = await verifier.post(BATCH, body, { headers });
      }
      assert.equal(retry.statusCode, 200, retry.body);
      assert.equal(held.reads(), 2, 'the retry ran the batch');
    } finally {
      held.release();
      await verifier.close();
      await proxy.cut();
    }
  });

  it('holds the key for a request running longer than the retention, and purges no running key', async () => {
    const clock = fixedClock('2026-03-01T10:00:00Z');
    const verifier = await startTestVerifier({
      relays: { civil: upstreamUrl, social: upstreamUrl },
      clock,
      edit: (text) => `${postgresState(text)}  evaluation_retention: 1s\n`,
      env: { STATE_URL: database.url },
    });
    const held = holdUpstream();
    handler = held.handler;
    const { release, reached } = held;
    try {
      const body = { items: [{ target: TARGET }], claims: ['person_alive'] };
      const headers = { 'idempotency-key': 'outlives-retention' };
      const first = verifier.post(BATCH, body, { headers });
      await untilRead(reached, first);
      // Past the retention, within the lease: the key still belongs to the running request.
      clock.advance(2_000);
      await verifier.verifier.runtime.store.purgeExpired();
      const meanwhile = await verifier.post(BATCH, body, { headers });
      assertProblem(meanwhile, 409, 'idempotency.conflict');
      assert.equal(held.reads(), 1, 'the batch is not run a second time');
      release();
      assert.equal((await first).statusCode, 200);
    } finally {
      release();
      await verifier.close();
    }
  });
});

// While the PostgreSQL state store is known to be unreachable, evaluations and batches are refused before they
// read any source: a result that could not be kept is not worth a consultation of a registry.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { proxiedDatabase } from '../helpers/cuttable-proxy.ts';
import { countingReads, oneLivingPerson } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { startTestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
const BATCH = '/v1/batch-evaluations';

describe('verifier state store outage', () => {
  let upstream: FakeUpstream;
  let database: TestDatabase;
  const counted = countingReads(oneLivingPerson);
  const reads = counted.reads;

  before(async () => {
    upstream = await startFakeUpstream(counted.handler);
    database = await openTestDatabase();
  });
  after(async () => {
    await database?.close();
    await upstream.close();
  });

  /** A verifier whose PostgreSQL state store is reached through a proxy the test cuts, with short time limits. */
  const startOnProxiedStore = async () => {
    const { proxy, url } = await proxiedDatabase(database.url);
    const clock = fixedClock('2026-03-01T10:00:00Z');
    const verifier = await startTestVerifier({
      relays: { civil: upstream.url, social: upstream.url },
      clock,
      edit: (text) =>
        `${text}\nstate:\n  storage: postgresql\n  postgresql: { url_env: STATE_URL, connect_timeout: 1s, operation_timeout: 2s }\n`,
      env: { STATE_URL: url },
    });
    return { proxy, clock, verifier };
  };

  /**
   * The first evaluation the store keeps: on a busy machine its first connection and migration may outlast the
   * short time limits, so evaluations are tried until one is stored (a store found unreachable is tried again a
   * second later, by the verifier's clock).
   */
  const firstStored = async (
    verifier: Awaited<ReturnType<typeof startTestVerifier>>,
    clock: ReturnType<typeof fixedClock>,
  ) => {
    let first = await verifier.evaluate({ target: TARGET, claims: ['person_alive'] });
    for (let attempt = 1; first.statusCode !== 200 && attempt < 10; attempt++) {
      clock.advance(1_000);
      first = await verifier.evaluate({ target: TARGET, claims: ['person_alive'] });
    }
    assert.equal(first.statusCode, 200, first.body);
    return first;
  };

  it('reads() no source while the store cannot be reached, and reads() again once it answers', async () => {
    const { proxy, clock, verifier } = await startOnProxiedStore();
    const evaluate = () => verifier.evaluate({ target: TARGET, claims: ['person_alive'] });
    try {
      // The store answers before the outage.
      await firstStored(verifier, clock);
      const base = reads() - 1;

      await proxy.cut();
      // The first evaluation after the outage began finds it out when it stores its result.
      assertProblem(await evaluate(), 503, 'state.unavailable');
      assert.equal(reads() - base, 2);
      // Those after it are refused before reading.
      const refused = await evaluate();
      assertProblem(refused, 503, 'state.unavailable');
      assert.equal(refused.headers['retry-after'], '1');
      assertProblem(
        await verifier.post(BATCH, { items: [{ target: TARGET }], claims: ['person_alive'] }),
        503,
        'state.unavailable',
      );
      assert.equal(reads() - base, 2, 'no source was read while the store was known to be down');
      const events = verifier.auditRecords().filter((entry) => entry.endpoint_kind !== undefined);
      const last = events.at(-2);
      assert.equal(last?.endpoint_kind, 'evaluate');
      assert.equal(last?.problem_code, 'state.unavailable');
      assert.match(String(last?.error_code), /^state\./);
      assert.equal(events.at(-1)?.endpoint_kind, 'batch_evaluate');

      // A second later the next request tries the database again: still down, it reads() once and fails.
      clock.advance(1_000);
      assertProblem(await evaluate(), 503, 'state.unavailable');
      assert.equal(reads() - base, 3);

      await proxy.open();
      clock.advance(1_000);
      const back = await evaluate();
      assert.equal(back.statusCode, 200, back.body);
      assert.equal(reads() - base, 4);
      assert.equal((await evaluate()).statusCode, 200);
      assert.equal(reads() - base, 5);
    } finally {
      await verifier.close();
      await proxy.cut();
    }
  });

  // A database that accepts connections and never answers would hold each render for the whole connect time-out.
  it('renders nothing while the store is known to be down: 503 at once, no connection attempted', async () => {
    const { proxy, clock, verifier } = await startOnProxiedStore();
    const silent = new Set<Socket>();
    const blackHole = createServer((socket) => silent.add(socket));
    try {
      const stored = await firstStored(verifier, clock);
      const id = JSON.parse(stored.body).results[0].evaluation_id as string;

      await proxy.cut();
      // The outage is found by the next store operation; from then on the database's port takes connections that
      // are never answered.
      assertProblem(
        await verifier.evaluate({ target: TARGET, claims: ['person_alive'] }),
        503,
        'state.unavailable',
      );
      await new Promise<void>((resolve) => blackHole.listen(proxy.port, '127.0.0.1', resolve));
      const rendered = await verifier.post(`/v1/evaluations/${id}/render`, {});
      assertProblem(rendered, 503, 'state.unavailable');
      assert.equal(rendered.headers['retry-after'], '1');
      assert.equal(silent.size, 0, 'the render did not try the database');
      const event = verifier
        .auditRecords()
        .filter((entry) => entry.endpoint_kind !== undefined)
        .at(-1);
      assert.equal(event?.endpoint_kind, 'render');
      assert.match(String(event?.error_code), /^state\./);
    } finally {
      await verifier.close();
      for (const socket of silent) socket.destroy();
      await new Promise<void>((resolve) => blackHole.close(() => resolve()));
    }
  });
});

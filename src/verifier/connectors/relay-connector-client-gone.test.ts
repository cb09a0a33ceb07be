// A request answered early (its client went away) moves its reads' deadline to then; `recheck` makes the connector
// look again: an attempt still on its way for it is dropped (its socket closed, its max_in_flight slot given to the
// next read), and a pause before another attempt ends, the read failing as a request out of time.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { until } from '../../../test/helpers/wait-until.ts';
import { auditCodeOf } from './failure-reason.ts';
import { failure, json, LOOKUP, useConnectorUpstream } from './relay-connector-fixture.ts';
import type { SourceLookup } from './source-reader.ts';

/** A lookup whose deadline the test brings forward, as the request watchdog does when a client goes away. */
function movable(value: string): { lookup: SourceLookup; leave(): void } {
  let deadline = performance.now() + 60_000;
  return {
    lookup: {
      ...LOOKUP,
      value,
      get deadline() {
        return deadline;
      },
    },
    leave() {
      deadline = performance.now();
    },
  };
}

// Without the connector looking again, each of these would wait out the attempt or pause: a hang, not an answer.
const HANGS = { timeout: 10_000 };

describe('registry_data_api connector: reads of a request answered early', () => {
  const upstream = useConnectorUpstream();

  it(
    'drops the attempt on its way: the source sees the connection close, the slot goes to the next read',
    HANGS,
    async () => {
      const held: ServerResponse[] = [];
      const closed: string[] = [];
      upstream.handler = (request, response) => {
        const value = new URL(request.url ?? '', 'http://x').searchParams.get('national_id') ?? '';
        if (value !== 'FAKE-gone') {
          json(response, 200, { data: [{ national_id: value, deceased: false }] });
          return;
        }
        held.push(response);
        response.on('close', () => closed.push(value));
      };
      // One slot, and attempts far longer than the test: only the request going away can free it.
      const reader = upstream.connector({ max_in_flight: 1, timeout: 60_000 });
      const gone = movable('FAKE-gone');
      const reading = failure(reader.read(gone.lookup));
      await until('the read reaches the source', () => held.length === 1);
      const next = reader.read({ ...LOOKUP, value: 'FAKE-next', deadline: performance.now() + 60_000 });

      gone.leave();
      reader.recheck?.();
      const problem = await reading;
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [504, 'internal.timeout', 'source.timeout'],
      );
      assert.equal((await next).row.national_id, 'FAKE-next');
      await until('the source sees the connection close', () => closed.length === 1);
      reader.close();
      for (const response of held) response.destroy();
      // Dropped, not retried.
      assert.equal(upstream.requests.length, 2);
    },
  );

  it('leaves alone the attempts of requests still waiting for them', HANGS, async () => {
    const held: ServerResponse[] = [];
    upstream.handler = (_request, response) => held.push(response);
    const reader = upstream.connector({ timeout: 60_000 });
    const gone = movable('FAKE-gone');
    const staying = movable('FAKE-staying');
    const dropped = failure(reader.read(gone.lookup));
    const kept = reader.read(staying.lookup);
    await until('both reads reach the source', () => held.length === 2);
    gone.leave();
    reader.recheck?.();
    assert.equal((await dropped).code, 'internal.timeout');
    for (const response of held) {
      if (!response.destroyed) json(response, 200, { data: [{ national_id: 'FAKE-staying' }] });
    }
    assert.equal((await kept).row.national_id, 'FAKE-staying');
    reader.close();
  });

  it('ends a pause before another attempt: the read is not sent again', HANGS, async () => {
    upstream.handler = (_request, response) => json(response, 503, {}, { 'retry-after': '2' });
    let paused = false;
    // A pause that outlasts the test: only the request going away can end it.
    const reader = upstream.connector({}, { sleep: () => new Promise<void>(() => {}) });
    const gone = movable('FAKE-gone');
    const reading = failure(
      reader.read({
        ...gone.lookup,
        get deadline() {
          return gone.lookup.deadline;
        },
        onPause() {
          paused = true;
        },
      }),
    );
    await until('the read pauses', () => paused);
    gone.leave();
    reader.recheck?.();
    const problem = await reading;
    reader.close();
    assert.deepEqual(
      [problem.status, problem.code, auditCodeOf(problem)],
      [504, 'internal.timeout', 'source.deadline_passed'],
    );
    assert.equal(upstream.requests.length, 1);
  });
});

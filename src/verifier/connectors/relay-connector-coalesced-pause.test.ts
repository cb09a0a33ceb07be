// Coalesced reads over a real connection while the source fails for a while: a read pausing before its next
// attempt is not on its way, so lookups of its binding arriving meanwhile still leave at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCoalescingReader } from './create-coalescing-reader.ts';
import { json, LOOKUP, useConnectorUpstream } from './relay-connector-fixture.ts';

const RETRY = { max_attempts: 3, base_delay: 100, max_delay: 1000, max_retry_after: 5000 };

describe('coalesced reads: a source that recovers while reads pause between attempts', () => {
  const upstream = useConnectorUpstream();

  it('sends lookups arriving while every read of their binding pauses, at once and together', {
    timeout: 10_000,
  }, async () => {
    // A and B are refused once (503); everything after that is answered.
    const refused = new Set(['A', 'B']);
    upstream.handler = (request, response) => {
      const query = new URL(request.url ?? '', 'http://relay').searchParams;
      const single = query.get('national_id');
      if (single !== null && refused.delete(single)) {
        json(response, 503, { code: 'datasource.unavailable' });
        return;
      }
      const values = single === null ? (query.get('national_id.in') ?? '').split(',') : [single];
      json(response, 200, {
        data: values.map((value) => ({ national_id: value, deceased: false })),
        pagination: { has_more: false },
      });
    };
    // Each pause waits until the test ends it; `paused` tells when one starts.
    const pauses: (() => void)[] = [];
    let paused: () => void = () => {};
    const reader = createCoalescingReader(
      upstream.connector(
        { bulk_mode: 'rda_in_filter', coalesce_reads: true, retry: RETRY },
        {
          sleep: () =>
            new Promise<void>((resume) => {
              pauses.push(resume);
              paused();
            }),
        },
      ),
      () => true,
    );
    const pause = () => new Promise<void>((resolve) => (paused = resolve));
    try {
      const readOf = (value: string) => reader.read({ ...LOOKUP, value, requestId: `req-${value}` });
      let next = pause();
      const a = readOf('A');
      await next;
      next = pause();
      const b = readOf('B');
      await next;
      // Both reads of the binding are pausing: the source is not being asked anything.
      const [c, d] = await Promise.all([readOf('C'), readOf('D')]);
      assert.deepEqual([c.row.national_id, d.row.national_id], ['C', 'D']);
      assert.equal(pauses.length, 2);
      const sent = upstream.requests.map(
        (request) => new URL(request.url ?? '', 'http://relay').searchParams,
      );
      assert.equal(sent[2]?.get('national_id.in'), 'C,D');
      for (const resume of pauses) resume();
      const [ra, rb] = await Promise.all([a, b]);
      assert.deepEqual([ra.row.national_id, rb.row.national_id], ['A', 'B']);
      assert.equal(upstream.requests.length, 5);
    } finally {
      for (const resume of pauses) resume();
      reader.close();
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBatchReader } from './create-batch-reader.ts';
import { createCoalescingReader } from './create-coalescing-reader.ts';
import { binding, fakeSourceReader, lookupOf, PURPOSE, readCounter } from './fake-source-reader.ts';
import { requestTimedOut, type SourceLookup, type SourceReader } from './source-reader.ts';

const BULK = binding('bulk');
const SINGLE = binding('single');
const P = PURPOSE;

function lookup(value: string, on = BULK, purpose = P): SourceLookup {
  return lookupOf(value, on, purpose);
}

const fakeBase = fakeSourceReader;

describe('batch reader', () => {
  it('reads announced lookups with one bulk request per binding and limit, and each distinct lookup once', async () => {
    const { base, singles, bulks } = fakeBase();
    const reader = createBatchReader(base);
    const lookups = ['a', 'b', 'a', 'c', 'd', 'e'].map((value) => lookup(value));
    reader.prefetch(lookups);
    const rows = await Promise.all(lookups.map((entry) => reader.read(entry)));
    assert.deepEqual(
      bulks.map((request) => request.values),
      [
        ['a', 'b', 'c'],
        ['d', 'e'],
      ],
    );
    assert.deepEqual(singles, []);
    assert.deepEqual(
      rows.map((record) => record.row.via),
      ['bulk', 'bulk', 'bulk', 'bulk', 'bulk', 'bulk'],
    );
    assert.equal(reader.upstreamRequests, 2);
  });

  it('reads singly what bulk cannot carry or settle, still once per lookup', async () => {
    const { base, singles, bulks } = fakeBase();
    const reader = createBatchReader(base);
    const lookups = [
      lookup('x', SINGLE),
      lookup('x', SINGLE),
      lookup('has,comma'),
      lookup(' padded'),
      lookup('?unsettled'),
      lookup('ok'),
      lookup('lone', BULK, 'https://p.example/other'),
    ];
    reader.prefetch(lookups);
    const rows = await Promise.all(lookups.map((entry) => reader.read(entry)));
    assert.deepEqual(
      bulks.map((request) => request.values),
      [['?unsettled', 'ok']],
    );
    assert.deepEqual(
      [...singles].sort(),
      ['bulk: padded', 'bulk:?unsettled', 'bulk:has,comma', 'bulk:lone', 'single:x'].sort(),
    );
    assert.equal(rows[5]?.row.via, 'bulk');
    assert.equal(reader.upstreamRequests, 6);
  });

  it('reads the values a bulk answer left unsettled singly, past a coalescing reader, as many requests as counted', async () => {
    const { base, singles, bulks } = fakeBase();
    // The service's reader coalesces concurrent single reads into `.in` requests: these must not be.
    const reader = createBatchReader(createCoalescingReader(base, () => true));
    const lookups = ['?a', '?b', '?c'].map((value) => lookup(value));
    reader.prefetch(lookups);
    const rows = await Promise.all(lookups.map((entry) => reader.read(entry)));
    assert.deepEqual(
      bulks.map((request) => request.values),
      [['?a', '?b', '?c']],
    );
    assert.deepEqual([...singles].sort(), ['bulk:?a', 'bulk:?b', 'bulk:?c']);
    assert.deepEqual(
      rows.map((record) => record.row.via),
      ['single', 'single', 'single'],
    );
    assert.equal(reader.upstreamRequests, 4);
  });

  it('keeps lookups with different projections apart', async () => {
    const { base, bulks } = fakeBase();
    const reader = createBatchReader(base);
    const other = binding('bulk', ['birth_date']);
    reader.prefetch([lookup('a'), lookup('b'), lookup('a', other), lookup('b', other)]);
    assert.equal(bulks.length, 2);
  });

  it('passes each value its own outcome, and a failed bulk read to every value in it', async () => {
    const { base } = fakeBase();
    const reader = createBatchReader(base);
    reader.prefetch([lookup('found'), lookup('missing')]);
    assert.equal((await reader.read(lookup('found'))).row.via, 'bulk');
    await assert.rejects(reader.read(lookup('missing')), { code: 'evidence.not_available' });

    const failing = fakeBase({ failBulk: true });
    const down = createBatchReader(failing.base);
    // Nobody reads these lookups: their failure must not surface as an unhandled rejection.
    down.prefetch([lookup('u'), lookup('v'), lookup('w'), lookup('z')]);
    await assert.rejects(down.read(lookup('u')), { code: 'source.unavailable' });
    await new Promise((resolve) => setImmediate(resolve));
  });

  it("counts a shared read for every item that reads it, once, and passes the batch's deadline on", async () => {
    const { base, bulks, singleLookups } = fakeBase();
    const reader = createBatchReader(base);
    const deadline = performance.now() + 60_000;
    const announced = ['a', 'b', '?u'].map((value) => ({ ...lookup(value), deadline }));
    reader.prefetch(announced);
    // Items read with their own traces: two read `a`, two read a value on a connection without bulk reads.
    const items = [
      ['a', BULK],
      ['a', BULK],
      ['b', BULK],
      ['?u', BULK],
      ['x', SINGLE],
      ['x', SINGLE],
    ] as const;
    const traces = items.map(() => readCounter());
    await Promise.all(
      items.map(([value, on], index) =>
        reader.read({ ...lookup(value, on), deadline, trace: traces[index] }),
      ),
    );
    assert.deepEqual(
      traces.map((trace) => trace.sent),
      [1, 1, 1, 1, 1, 1],
    );
    assert.equal(bulks[0]?.deadline, deadline);
    assert.deepEqual(
      singleLookups.map((entry) => [entry.value, entry.deadline]),
      [
        ['x', deadline],
        ['?u', deadline],
      ],
    );
  });

  it('counts the requests actually sent: every attempt and every request of a split bulk read, none never sent', async () => {
    const { base } = fakeBase();
    // The connector tells the counter of each request as it leaves: the bulk read takes three (a retry, two
    // halves); the single read of `late` is never sent (its request had no time left).
    const sending: SourceReader = {
      ...base,
      async read(request) {
        if (request.value === 'late') throw requestTimedOut();
        return base.read(request);
      },
      async readMany(request) {
        request.requests?.requestSent();
        request.requests?.requestSent();
        return base.readMany(request);
      },
    };
    const reader = createBatchReader(sending);
    const lookups = ['a', 'b', '?c'].map((value) => lookup(value));
    reader.prefetch(lookups);
    await Promise.all(lookups.map((entry) => reader.read(entry)));
    await assert.rejects(reader.read(lookup('late', SINGLE)), { code: 'internal.timeout' });
    // Three for the bulk read, one for the single read of `?c` it left unsettled.
    assert.equal(reader.upstreamRequests, 4);
  });
});

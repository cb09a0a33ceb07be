import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCoalescingReader } from './create-coalescing-reader.ts';
import { binding, fakeSourceReader, lookupOf, PURPOSE, readCounter } from './fake-source-reader.ts';
import type { SourceLookup, SourceReader, SourceRecord } from './source-reader.ts';

const COALESCED = binding('bulk');
const P = PURPOSE;

const lookup = (value: string, on = COALESCED, purpose = P, requestId = `req-${value}`): SourceLookup =>
  lookupOf(value, on, purpose, requestId);

const fakeBase = fakeSourceReader;

const onlyBulk = (entry: SourceLookup) => entry.binding.connection === 'bulk';

describe('coalescing reader', () => {
  it('reads the lookups of one turn together, in requests of at most the bulk limit', async () => {
    const { base, singles, bulks } = fakeBase();
    const reader = createCoalescingReader(base, onlyBulk);
    const values = ['a', 'b', 'c', 'd', 'e'];
    const rows = await Promise.all(values.map((value) => reader.read(lookup(value))));
    assert.deepEqual(
      rows.map((record) => record.row.national_id),
      values,
    );
    assert.deepEqual(
      bulks.map((request) => request.values),
      [
        ['a', 'b', 'c'],
        ['d', 'e'],
      ],
    );
    // Each request carries the correlation id of the first evaluation in it.
    assert.deepEqual(
      bulks.map((request) => request.requestId),
      ['req-a', 'req-d'],
    );
    assert.deepEqual(singles, []);
  });

  it('reads a subject asked twice in one turn once, and a lone lookup singly', async () => {
    const { base, singles, bulks } = fakeBase();
    const reader = createCoalescingReader(base, onlyBulk);
    const [first, again] = await Promise.all([reader.read(lookup('a')), reader.read(lookup('a'))]);
    assert.equal(first, again);
    assert.deepEqual(bulks, []);
    assert.deepEqual(singles, ['bulk:a']);
  });

  it('keeps lookups of other purposes, projections or connections apart', async () => {
    const { base, singles, bulks } = fakeBase();
    const reader = createCoalescingReader(base, onlyBulk);
    await Promise.all([
      reader.read(lookup('a')),
      reader.read(lookup('b')),
      reader.read(lookup('c', COALESCED, 'https://p.example/other')),
      reader.read(lookup('d', binding('bulk', ['birth_date']))),
      reader.read(lookup('e', binding('elsewhere'))),
    ]);
    assert.deepEqual(
      bulks.map((request) => request.values),
      [['a', 'b']],
    );
    assert.deepEqual(singles.sort(), ['bulk:c', 'bulk:d', 'elsewhere:e']);
  });

  it('gives each lookup the outcome a single read would have had', async () => {
    const { base, singles } = fakeBase();
    const reader = createCoalescingReader(base, onlyBulk);
    const outcomes = await Promise.allSettled([
      reader.read(lookup('a')),
      reader.read(lookup('missing')),
      reader.read(lookup('?unsettled')),
    ]);
    assert.equal(outcomes[0]?.status, 'fulfilled');
    assert.equal(outcomes[1]?.status, 'rejected');
    assert.equal((outcomes[1] as PromiseRejectedResult).reason.code, 'evidence.not_available');
    // What the bulk answer could not settle is read singly.
    assert.equal((outcomes[2] as PromiseFulfilledResult<SourceRecord>).value.row.via, 'single');
    assert.deepEqual(singles, ['bulk:?unsettled']);
  });

  it('falls back to single reads when the source refuses the bulk form, and reports their failures', async () => {
    const { base, singles } = fakeBase();
    const reader = createCoalescingReader(base, onlyBulk);
    const outcomes = await Promise.allSettled([reader.read(lookup('refuse')), reader.read(lookup('down'))]);
    assert.deepEqual(singles.sort(), ['bulk:down', 'bulk:refuse']);
    assert.equal(outcomes[0]?.status, 'fulfilled');
    assert.equal((outcomes[1] as PromiseRejectedResult).reason.code, 'source.unavailable');
  });

  it('never holds back a value that cannot travel in an `.in` list', async () => {
    const { base, singles, bulks } = fakeBase();
    const reader = createCoalescingReader(base, onlyBulk);
    await Promise.all([reader.read(lookup('x,y')), reader.read(lookup(' z')), reader.read(lookup('w'))]);
    assert.deepEqual(bulks, []);
    assert.deepEqual(singles.sort(), ['bulk: z', 'bulk:w', 'bulk:x,y']);
  });

  it('holds lookups back while reads of their binding are on their way, then sends them together', async () => {
    const released: (() => void)[] = [];
    const { base, singles, bulks } = fakeBase();
    // Every upstream read waits until the test releases it.
    const held: SourceReader = {
      ...base,
      read: (request) => new Promise<void>((go) => released.push(go)).then(() => base.read(request)),
      readMany: (request) => new Promise<void>((go) => released.push(go)).then(() => base.readMany(request)),
    };
    const reader = createCoalescingReader(held, onlyBulk);
    const first = [reader.read(lookup('a')), reader.read(lookup('b'))];
    await new Promise((resolve) => setImmediate(resolve));
    const second = [reader.read(lookup('c'))];
    await new Promise((resolve) => setImmediate(resolve));
    // Two reads may be on their way: a+b together, then c alone; d, e and f wait for one of them.
    const third = [reader.read(lookup('d')), reader.read(lookup('e')), reader.read(lookup('f'))];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(released.length, 2);
    for (const go of released.splice(0)) go();
    await Promise.all([...first, ...second]);
    await new Promise((resolve) => setImmediate(resolve));
    for (const go of released.splice(0)) go();
    const rows = await Promise.all(third);
    assert.deepEqual(
      rows.map((record) => record.row.national_id),
      ['d', 'e', 'f'],
    );
    assert.deepEqual(
      bulks.map((request) => request.values),
      [
        ['a', 'b'],
        ['d', 'e', 'f'],
      ],
    );
    assert.deepEqual(singles, ['bulk:c']);
  });

  it("counts each evaluation's read once when the request serving it leaves, never again for a single re-read", async () => {
    const { base, singles, bulks } = fakeBase();
    const reader = createCoalescingReader(base, onlyBulk);
    const traces = [readCounter(), readCounter(), readCounter(), readCounter()];
    const [a, again, b, unsettled] = traces;
    await Promise.all([
      reader.read({ ...lookup('a'), trace: a }),
      reader.read({ ...lookup('a'), trace: again }),
      reader.read({ ...lookup('b'), trace: b }),
      reader.read({ ...lookup('?u'), trace: unsettled }),
    ]);
    assert.deepEqual(
      bulks.map((request) => request.values),
      [['a', 'b', '?u']],
    );
    assert.deepEqual(singles, ['bulk:?u']);
    assert.deepEqual(
      traces.map((trace) => trace.sent),
      [1, 1, 1, 1],
    );
    // One subject asked by two evaluations at once: one single read, counted for both.
    const twice = [readCounter(), readCounter()];
    await Promise.all(twice.map((trace) => reader.read({ ...lookup('z'), trace })));
    assert.deepEqual(
      twice.map((trace) => trace.sent),
      [1, 1],
    );
  });

  it('never sends a lookup whose request timed out while it waited; the others share a read until the latest deadline', async () => {
    const released: (() => void)[] = [];
    const { base, bulks } = fakeBase();
    const held: SourceReader = {
      ...base,
      read: (request) => new Promise<void>((go) => released.push(go)).then(() => base.read(request)),
      readMany: (request) => new Promise<void>((go) => released.push(go)).then(() => base.readMany(request)),
    };
    const reader = createCoalescingReader(held, onlyBulk);
    const busy = [reader.read(lookup('a'))];
    await new Promise((resolve) => setImmediate(resolve));
    busy.push(reader.read(lookup('b')));
    await new Promise((resolve) => setImmediate(resolve));
    // Both reads the group may have on their way are out: the next lookups wait.
    const now = performance.now();
    const [expired, soon, later] = [readCounter(), readCounter(), readCounter()];
    const timedOut = reader.read({ ...lookup('c'), deadline: now + 20, trace: expired });
    const waiting = [
      reader.read({ ...lookup('d'), deadline: now + 60_000, trace: soon }),
      reader.read({ ...lookup('e'), deadline: now + 120_000, trace: later }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 40));
    for (const go of released.splice(0)) go();
    await Promise.all(busy);
    await assert.rejects(timedOut, { code: 'internal.timeout' });
    await new Promise((resolve) => setImmediate(resolve));
    for (const go of released.splice(0)) go();
    await Promise.all(waiting);
    assert.deepEqual(
      bulks.map((request) => [request.values, request.deadline]),
      [[['d', 'e'], now + 120_000]],
    );
    assert.deepEqual([expired.sent, soon.sent, later.sent], [0, 1, 1]);
  });

  it("tells each batch's request counter of every request it shares, once per request", async () => {
    const { base, singles, bulks } = fakeBase();
    const reader = createCoalescingReader(base, onlyBulk);
    const counter = () => ({
      sent: 0,
      requestSent() {
        this.sent++;
      },
    });
    const [first, second, alone] = [counter(), counter(), counter()];
    await Promise.all([
      reader.read({ ...lookup('a'), requests: first }),
      reader.read({ ...lookup('b'), requests: first }),
      reader.read({ ...lookup('a'), requests: second }),
      reader.read({ ...lookup('?u'), requests: second }),
      reader.read(lookup('c')),
    ]);
    assert.deepEqual(
      bulks.map((request) => request.values),
      [['a', 'b', '?u']],
    );
    assert.deepEqual(singles, ['bulk:c', 'bulk:?u']);
    // The bulk request served both batches; the single re-read of `?u` only the second.
    assert.deepEqual([first.sent, second.sent], [1, 2]);
    // A value read by two evaluations at once, in one single read.
    await Promise.all([
      reader.read({ ...lookup('z'), requests: first }),
      reader.read({ ...lookup('z'), requests: alone }),
    ]);
    assert.deepEqual([first.sent, second.sent, alone.sent], [2, 2, 1]);
  });
});

// Bulk (`.in`) reads answered by a source that matches values otherwise than by their text, answers refused for
// one record's sake, retried requests in the batch audit, and lookup text a URL cannot carry: a demo relay with a
// timestamp lookup field, and a fake relay that serves a table and counts every request.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { nationalIdTable } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { aliveByAttributeClaim, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';
import { readDemoData } from '../relay/read-demo-data.ts';

const BATCH = '/v1/batch-evaluations';

interface Item {
  status: string;
  claim_results: { satisfied: boolean }[];
  errors: { code: string; retryable: boolean }[];
}

const byNationalId = (value: string) => ({
  type: 'person',
  identifiers: [{ scheme: 'national_id', value }],
});

function batchEvent(verifier: TestVerifier, batchId: string) {
  return verifier
    .auditRecords()
    .find((record) => record.batch_id === batchId && record.endpoint_kind === 'batch_evaluate');
}

describe('bulk reads against a timestamp lookup field', () => {
  /** The demo relay with `birth_date` served as a timestamp, `in` allowed on it, and no required filter. */
  const timestampBirthDates = (text: string) =>
    text
      .replace('metadata:\n  source:\n    path: relay.metadata.yaml\n', '')
      .replace('          required_filters: [person_id, national_id]\n', '')
      .replace(
        '- { name: birth_date, type: date, nullable: false }',
        '- { name: birth_date, type: timestamp, nullable: false }',
      )
      .replace(
        '- { field: birth_date, ops: [gte, lte, between] }\n            - { field: deceased',
        '- { field: birth_date, ops: [eq, in, gte, lte, between] }\n            - { field: deceased',
      );
  const byBirth = aliveByAttributeClaim({
    id: 'alive_by_birth',
    title: 'Person born at an instant is alive',
    attribute: 'born',
    field: 'birth_date',
  });
  // The only person of the demo data born that day; the relay answers the instant as `1934-09-04T00:00:00.000Z`.
  const SPELLINGS = [
    '1934-09-04T00:00:00.000Z',
    '1934-09-04T00:00:00Z',
    '1934-09-04',
    '1934-09-04T01:00:00+01:00',
  ];
  const born = (value: string) => ({ type: 'person', attributes: { born: value } });
  let relay: TestRelay;
  let batching: TestVerifier;
  let coalescing: TestVerifier;

  before(async () => {
    relay = await startDemoRelay({ edit: timestampBirthDates });
    await relay.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(relay.app.server.address() as AddressInfo).port}`;
    batching = await startTestVerifier({
      relays: { civil: url },
      bulk: true,
      edit: (text) => `${text}${byBirth}`,
    });
    coalescing = await startTestVerifier({
      relays: { civil: url },
      bulk: true,
      edit: (text) =>
        `${text.replace('bulk_mode: rda_in_filter\n', 'bulk_mode: rda_in_filter\n      coalesce_reads: true\n')}${byBirth}`,
    });
  });
  after(async () => {
    await Promise.all([batching, coalescing].map((verifier) => verifier?.close()));
    await relay?.close();
  });

  const rowReads = () => relay.auditRecords().filter((record) => record.endpoint_kind === 'rows');

  it('finds the record for every spelling of the instant in one batch; a day absent is settled by the .in read', async () => {
    const before = rowReads().length;
    const response = await batching.post(BATCH, {
      items: [...SPELLINGS, '1899-01-01T00:00:00.000Z'].map((value) => ({ target: born(value) })),
      claims: ['alive_by_birth'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as { batch_id: string; items: Item[] };
    assert.deepEqual(
      body.items.map((item) => [item.status, item.errors[0]?.code ?? null]),
      [
        ['succeeded', null],
        ['succeeded', null],
        ['succeeded', null],
        ['succeeded', null],
        ['failed', 'evidence.not_available'],
      ],
    );
    // One `.in` read for all five, then the three spellings it could not settle, each alone.
    const reads = rowReads().slice(before);
    assert.deepEqual(
      reads.map((read) => Object.keys(read.query_params as object).includes('birth_date.in')),
      [true, false, false, false],
    );
    assert.equal(batchEvent(batching, body.batch_id)?.upstream_request_count, 4);
  });

  it('answers concurrent single evaluations alternating spellings as each alone', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        coalescing.evaluate({
          target: born(SPELLINGS[index % SPELLINGS.length] as string),
          claims: ['alive_by_birth'],
        }),
      ),
    );
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      responses.map(() => 200),
    );
    assert.ok(
      rowReads().some((read) => Object.keys(read.query_params as object).includes('birth_date.in')),
      'some reads were shared',
    );
  });

  it('narrows a value the relay refuses down in halves: one mistyped subject does not cost a request per subject', async () => {
    const data = await readDemoData();
    const days = new Map<string, number>();
    for (const row of data.persons)
      days.set(String(row.birth_date), (days.get(String(row.birth_date)) ?? 0) + 1);
    // Days of one person each, none within a day of another: the `.in` answer settles every one of them.
    const picked: number[] = [];
    for (const [day, count] of [...days].sort()) {
      const at = Date.parse(day) / 86_400_000;
      if (count === 1 && picked.every((other) => Math.abs(other - at) > 1)) picked.push(at);
      if (picked.length === 20) break;
    }
    const instants = picked.map((day) => new Date(day * 86_400_000).toISOString());
    const values = [...instants.slice(0, 10), 'not-a-date', ...instants.slice(10)];
    const before = rowReads().length;
    const response = await batching.post(BATCH, {
      items: values.map((value) => ({ target: born(value) })),
      claims: ['alive_by_birth'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as { batch_id: string; items: Item[] };
    assert.deepEqual(
      body.items.map((item) => [item.status, item.errors[0]?.code ?? null]),
      values.map((value) =>
        value === 'not-a-date' ? ['failed', 'evidence.not_available'] : ['succeeded', null],
      ),
    );
    // The relay refuses the whole list for its one unreadable value (400 filter.invalid_value): 21 values, then
    // halves of 11 and 10, the 11 in halves of 6 and 5, the 5 in 3 and 2, and the last pair each alone.
    const reads = rowReads().slice(before);
    assert.deepEqual(
      reads.map((read) => Object.keys(read.query_params as object).includes('birth_date.in')),
      [true, true, true, true, true, true, true, false, false],
    );
    assert.equal(batchEvent(batching, body.batch_id)?.upstream_request_count, 9);

    // Both halves refused: more than one value is at fault (or every list is refused), read one request each.
    const twice = ['not-a-date', ...instants, 'not-a-day'];
    const start = rowReads().length;
    const again = await batching.post(BATCH, {
      items: twice.map((value) => ({ target: born(value) })),
      claims: ['alive_by_birth'],
    });
    assert.equal(again.statusCode, 200, again.body);
    const answered = JSON.parse(again.body) as { batch_id: string; items: Item[] };
    assert.deepEqual(
      answered.items.map((item) => item.status),
      twice.map((value) => (value.startsWith('not-') ? 'failed' : 'succeeded')),
    );
    assert.equal(batchEvent(batching, answered.batch_id)?.upstream_request_count, 3 + twice.length);
    assert.equal(rowReads().length - start, 3 + twice.length);
  });
});

describe('bulk reads from a relay whose answers can be refused', () => {
  let upstream: FakeUpstream;
  let requests: URLSearchParams[];
  let handler: (request: IncomingMessage, response: ServerResponse) => void;
  let verifier: TestVerifier;
  let coalescing: TestVerifier;

  const table = nationalIdTable;

  before(async () => {
    upstream = await startFakeUpstream((request, response) => {
      requests.push(new URL(request.url ?? '', 'http://x').searchParams);
      handler(request, response);
    });
    const url = upstream.url;
    verifier = await startTestVerifier({ relays: { civil: url, social: url }, bulk: true });
    coalescing = await startTestVerifier({
      relays: { civil: url, social: url },
      bulk: true,
      edit: (text) =>
        text.replaceAll(
          'bulk_mode: rda_in_filter\n',
          'bulk_mode: rda_in_filter\n      coalesce_reads: true\n',
        ),
    });
  });
  after(async () => {
    await Promise.all([verifier, coalescing].map((started) => started?.close()));
    await upstream.close();
  });
  beforeEach(() => {
    requests = [];
  });

  it('reads a batch whose .in answer is too large again in halves: every subject answered', async () => {
    const rows = Array.from({ length: 120 }, (_, index) => ({
      national_id: `FAKE-${100_000 + index}`,
      deceased: false,
      notes: 'x'.repeat(12_000),
    }));
    handler = table(rows);
    const response = await verifier.post(BATCH, {
      items: rows.slice(0, 100).map((row) => ({ target: byNationalId(row.national_id) })),
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as { batch_id: string; items: Item[]; summary: unknown };
    assert.deepEqual(body.summary, { succeeded: 100, failed: 0 });
    assert.deepEqual(
      requests.map((query) => query.get('national_id.in')?.split(',').length),
      [100, 50, 50],
    );
    assert.equal(batchEvent(verifier, body.batch_id)?.upstream_request_count, 3);
  });

  it('answers concurrent single evaluations sharing a too large .in answer as each alone', async () => {
    const rows = Array.from({ length: 120 }, (_, index) => ({
      national_id: `FAKE-${200_000 + index}`,
      deceased: false,
      notes: 'x'.repeat(12_000),
    }));
    handler = table(rows);
    const responses = await Promise.all(
      rows
        .slice(0, 100)
        .map((row) =>
          coalescing.evaluate({ target: byNationalId(row.national_id), claims: ['person_alive'] }),
        ),
    );
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      responses.map(() => 200),
    );
    assert.ok(
      requests.some((query) => query.has('national_id.in')),
      'some reads were shared',
    );
  });

  it('fails only the subject whose record the source answers too deep, and not as retryable', async () => {
    const deep = `{"national_id":"FAKE-3","deep":${'['.repeat(40)}${']'.repeat(40)}}`;
    const rows = Array.from({ length: 10 }, (_, index) =>
      index === 3 ? { national_id: 'FAKE-3', raw: deep } : { national_id: `FAKE-${index}`, deceased: false },
    );
    handler = table(rows);
    const response = await verifier.post(BATCH, {
      items: rows.map((row) => ({ target: byNationalId(row.national_id as string) })),
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as { batch_id: string; items: Item[] };
    assert.deepEqual(
      body.items.map((item) => item.status),
      rows.map((_, index) => (index === 3 ? 'failed' : 'succeeded')),
    );
    assert.deepEqual(body.items[3]?.errors, [
      { code: 'source.unavailable', title: 'Source unavailable', retryable: false, claim_id: 'person_alive' },
    ]);
    const item = verifier
      .auditRecords()
      .find(
        (record) =>
          record.batch_id === body.batch_id &&
          record.endpoint_kind === 'batch_item' &&
          record.input_index === 3,
      );
    assert.equal(item?.error_code, 'source.invalid_response');
    // Halves of 10, 5, 3 and 2 values, then the two values of the last pair alone.
    assert.equal(requests.length, 7);
    assert.equal(batchEvent(verifier, body.batch_id)?.upstream_request_count, 7);
  });

  it('fails only the subject whose record holds a key twice, whichever value a reader would keep', async () => {
    // Read with JSON.parse's last value, FAKE-3 was answered deceased in the `.in` answer: `satisfied: false`.
    const twice = '{"national_id":"FAKE-3","deceased":false,"deceased":true}';
    const rows = Array.from({ length: 4 }, (_, index) =>
      index === 3 ? { national_id: 'FAKE-3', raw: twice } : { national_id: `FAKE-${index}`, deceased: false },
    );
    handler = table(rows);
    const response = await verifier.post(BATCH, {
      items: rows.map((row) => ({ target: byNationalId(row.national_id as string) })),
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as { items: Item[] };
    assert.deepEqual(
      body.items.map((item) => item.status),
      ['succeeded', 'succeeded', 'succeeded', 'failed'],
    );
    assert.deepEqual(body.items[3]?.errors, [
      { code: 'source.unavailable', title: 'Source unavailable', retryable: false, claim_id: 'person_alive' },
    ]);
  });

  it('counts every request sent in upstream_request_count, retries included', async () => {
    let calls = 0;
    const rows = [
      { national_id: 'FAKE-1', deceased: false },
      { national_id: 'FAKE-2', deceased: true },
    ];
    handler = (request, response) => {
      calls++;
      if (calls <= 2) {
        response.writeHead(503, { 'retry-after': '0' });
        response.end();
      } else table(rows)(request, response);
    };
    const response = await verifier.post(BATCH, {
      items: rows.map((row) => ({ target: byNationalId(row.national_id) })),
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as { batch_id: string; items: Item[] };
    assert.deepEqual(
      body.items.map((item) => item.claim_results[0]?.satisfied),
      [true, false],
    );
    assert.equal(requests.length, 3);
    assert.equal(batchEvent(verifier, body.batch_id)?.upstream_request_count, 3);
  });

  it('refuses lookup text with a lone surrogate before any read, rather than look up U+FFFD', async () => {
    handler = table([{ national_id: 'Z\uFFFD', deceased: false }]);
    for (const value of ['Z\ud800', 'Z\udfff']) {
      assertProblem(
        await verifier.evaluate({ target: byNationalId(value), claims: ['person_alive'] }),
        400,
        'request.invalid',
      );
      assertProblem(
        await verifier.evaluate({
          target: { type: 'person', id: 'x', attributes: { ref: value } },
          claims: ['person_alive'],
        }),
        400,
        'request.invalid',
      );
    }
    // A batch item's body is checked with the batch's: the whole batch is refused.
    const batch = assertProblem(
      await verifier.post(BATCH, {
        items: [{ target: byNationalId('FAKE-1') }, { target: { type: 'person', id: 'x\udfff' } }],
        claims: ['person_alive'],
      }),
      400,
      'request.invalid',
    );
    assert.deepEqual(batch.errors, [
      { path: 'items.1.target.id', message: 'Invalid string: a lone UTF-16 surrogate is not text' },
    ]);
    assert.equal(requests.length, 0);
    // The record keyed U+FFFD is still found by its own text.
    const found = await verifier.evaluate({ target: byNationalId('Z\uFFFD'), claims: ['person_alive'] });
    assert.equal(found.statusCode, 200, found.body);
    assert.equal(requests.length, 1);
  });
});

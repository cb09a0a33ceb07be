// The registry_data_api connector's bulk reads (`bulk_mode: rda_in_filter`): many lookups in one `.in` request.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { nationalIdTable } from '../../../test/helpers/fake-relay-table.ts';
import type { Problem } from '../../platform/problem/problem.ts';
import type { SourceConnectionConfig } from '../config/schema.ts';
import { auditCodeOf } from './failure-reason.ts';
import {
  BINDING,
  counter,
  failure,
  type Handler,
  json,
  LOOKUP,
  useConnectorUpstream,
} from './relay-connector-fixture.ts';

describe('registry_data_api connector', () => {
  const upstream = useConnectorUpstream();
  const connector = upstream.connector;

  describe('bulk reads (rda_in_filter)', () => {
    const BULK = { binding: BINDING, purpose: 'https://p.example/x', requestId: 'corr-b' };
    const bulk = (overrides: Partial<SourceConnectionConfig> = {}) =>
      connector({ bulk_mode: 'rda_in_filter', bulk_max_values: 50, ...overrides });
    const outcome = (settled: Map<string, unknown>, value: string) =>
      settled.get(value) as { record?: { row: unknown }; problem?: Problem } | undefined;

    it('is offered only where the connection allows it', () => {
      const plain = connector();
      const batching = bulk();
      assert.equal(plain.bulkLimit(BINDING), 0);
      assert.equal(batching.bulkLimit(BINDING), 50);
      assert.equal(batching.bulkLimit({ ...BINDING, connection: 'elsewhere' }), 0);
      plain.close();
      batching.close();
    });

    it('reads many values in one request with field.in and matches rows back by the lookup field', async () => {
      upstream.handler = (_request, response) =>
        json(response, 200, {
          data: [
            { national_id: 'A', deceased: false },
            { national_id: 'B', deceased: true },
            { national_id: 'C', deceased: false },
            { national_id: 'C', deceased: true },
          ],
          pagination: { has_more: false },
        });
      const reader = bulk();
      const settled = await reader.readMany({ ...BULK, values: ['A', 'B', 'C', 'D', 'A'] });
      reader.close();
      assert.equal(upstream.requests.length, 1);
      const url = new URL(upstream.requests[0]?.url ?? '', 'http://x');
      assert.deepEqual(Object.fromEntries(url.searchParams), {
        'national_id.in': 'A,B,C,D',
        fields: 'birth_date,deceased,national_id',
        limit: '4',
      });
      assert.equal(upstream.requests[0]?.headers.authorization, 'Bearer relay-secret');
      assert.equal(upstream.requests[0]?.headers['data-purpose'], 'https://p.example/x');
      assert.equal(upstream.requests[0]?.headers['x-request-id'], 'corr-b');
      assert.deepEqual(outcome(settled, 'A')?.record?.row, { national_id: 'A', deceased: false });
      assert.deepEqual(outcome(settled, 'B')?.record?.row, { national_id: 'B', deceased: true });
      const ambiguous = outcome(settled, 'C')?.problem as Problem;
      const missing = outcome(settled, 'D')?.problem as Problem;
      assert.equal(ambiguous.code, 'evidence.not_available');
      assert.equal(auditCodeOf(ambiguous), 'target.match_ambiguous');
      assert.equal(missing.code, 'evidence.not_available');
      assert.equal(auditCodeOf(missing), 'target.not_found');
    });

    it('leaves values it cannot settle to single reads: a cut-short page, rewritten keys, no rows at all', async () => {
      const reader = bulk();
      // has_more: only the certainly ambiguous value is settled.
      upstream.handler = (_request, response) =>
        json(response, 200, {
          data: [{ national_id: 'A' }, { national_id: 'A' }],
          pagination: { has_more: true },
        });
      let settled = await reader.readMany({ ...BULK, values: ['A', 'B'] });
      assert.deepEqual([...settled.keys()], ['A']);
      // Without pagination, a full page may have been cut short.
      upstream.handler = (_request, response) =>
        json(response, 200, { data: [{ national_id: 'A' }, { national_id: 'B' }] });
      settled = await reader.readMany({ ...BULK, values: ['A', 'B'] });
      assert.deepEqual([...settled.keys()], []);
      // Numeric keys: the source may have normalised "007" to 7, so an absent value proves nothing.
      upstream.handler = (_request, response) =>
        json(response, 200, { data: [{ national_id: 7 }], pagination: { has_more: false } });
      settled = await reader.readMany({ ...BULK, values: ['7', '007'] });
      assert.deepEqual([...settled.keys()], ['7']);
      // A row for a value not asked (a source comparing case-insensitively): a value's one row may not be all its
      // single read would find, so only the ambiguity the answer proves is settled.
      upstream.handler = (_request, response) =>
        json(response, 200, {
          data: [{ national_id: 'A1' }, { national_id: 'a1' }, { national_id: 'B2' }, { national_id: 'B2' }],
          pagination: { has_more: false },
        });
      settled = await reader.readMany({ ...BULK, values: ['A1', 'B2', 'C3', 'D4', 'E5'] });
      assert.deepEqual([...settled.keys()], ['B2']);
      // No row at all: nothing shows how the source compares values.
      upstream.handler = (_request, response) =>
        json(response, 200, { data: [], pagination: { has_more: false } });
      settled = await reader.readMany({ ...BULK, values: ['A', 'B'] });
      assert.equal(settled.size, 0);
      reader.close();
    });

    it('fails every value at once when the source refuses the credential, instead of reading each singly', async () => {
      const reader = bulk();
      for (const status of [401, 403]) {
        upstream.requests.length = 0;
        upstream.handler = (_request, response) =>
          json(response, status, { code: 'auth.invalid_credential' });
        const problem = await failure(reader.readMany({ ...BULK, values: ['A', 'B', 'C'] }));
        assert.equal(problem.code, 'source.unavailable');
        assert.equal(auditCodeOf(problem), `source.http_${status}`);
        assert.equal(upstream.requests.length, 1, 'one request, not one per value after it');
      }
      // A refusal of the bulk form itself still leaves the values to single reads.
      upstream.handler = (_request, response) => json(response, 400, { code: 'filter.not_allowed' });
      assert.equal((await reader.readMany({ ...BULK, values: ['A', 'B'] })).size, 0);
      reader.close();
    });

    const table = nationalIdTable;
    const inList = (request: IncomingMessage | undefined) =>
      new URL(request?.url ?? '', 'http://x').searchParams.get('national_id.in')?.split(',');
    /** The values settled, and how: a record, or the audit reason of the problem. */
    const summary = (settled: Map<string, { record: unknown } | { problem: Problem }>) =>
      Object.fromEntries(
        [...settled].map(([value, out]) => [value, 'record' in out ? 'record' : auditCodeOf(out.problem)]),
      );
    /** The source answers the lookup field in its own spelling. */
    const answering = (...cells: unknown[]) =>
      ((_request: IncomingMessage, response: ServerResponse) =>
        json(response, 200, {
          data: cells.map((cell) => ({ national_id: cell, deceased: false })),
          pagination: { has_more: false },
        })) satisfies Handler;

    it('reads singly a timestamp spelled otherwise than the source answers it, settles one it answers', async () => {
      // A timestamp field: the relay matches every spelling of the instant and answers `…00.000Z`.
      upstream.handler = answering('2020-01-01T00:00:00.000Z');
      const reader = bulk();
      const settled = await reader.readMany({
        ...BULK,
        values: [
          '2020-01-01T00:00:00.000Z',
          '2020-01-01T00:00:00Z',
          '2020-01-01',
          '2020-01-01T01:00:00+01:00',
          '2019-12-31T19:00:00-05:00',
          '2021-06-01T00:00:00.000Z',
        ],
      });
      // Listed the other way round, the spelling answered is still the only one settled.
      const reversed = await reader.readMany({
        ...BULK,
        values: ['2020-01-01T00:00:00Z', '2020-01-01T00:00:00.000Z'],
      });
      reader.close();
      assert.deepEqual(summary(settled), {
        '2020-01-01T00:00:00.000Z': 'record',
        // No row of the source could be another spelling of a day a year and a half away.
        '2021-06-01T00:00:00.000Z': 'target.not_found',
      });
      assert.deepEqual(summary(reversed), { '2020-01-01T00:00:00.000Z': 'record' });
    });

    it('reads singly a value the source may answer as a date it holds, and settles other dates', async () => {
      upstream.handler = answering('2020-01-01');
      const reader = bulk();
      const settled = await reader.readMany({
        ...BULK,
        values: ['2020-01-01', '2020-01-01T00:00:00Z', '2020-01-02', '2020-03-01'],
      });
      reader.close();
      // The day after may be the same day in another zone: only a day further is certainly not found.
      assert.deepEqual(summary(settled), { '2020-01-01': 'record', '2020-03-01': 'target.not_found' });
    });

    it('reads singly another spelling of a number the source holds, as text or as a number', async () => {
      const reader = bulk();
      upstream.handler = answering('7');
      const text = await reader.readMany({ ...BULK, values: ['7', '7.0', '07', '+7', '7e0', '8'] });
      upstream.handler = answering(7);
      const number = await reader.readMany({ ...BULK, values: ['7', '07', '8'] });
      reader.close();
      assert.deepEqual(summary(text), { '7': 'record', '8': 'target.not_found' });
      // A number answered may have been matched from any spelling: nothing absent is settled.
      assert.deepEqual(summary(number), { '7': 'record' });
    });

    it('reads singly what a case- or accent-insensitive source may have answered under another value', async () => {
      const reader = bulk();
      // Both spellings asked and both held: a single read of either finds two records.
      upstream.handler = answering('AB-1', 'ab-1');
      const both = await reader.readMany({ ...BULK, values: ['AB-1', 'ab-1', 'Ab-1', 'CD-2'] });
      // One held: it is all either spelling finds, but only the one answered under its own text is settled.
      upstream.handler = answering('AB-1');
      const one = await reader.readMany({ ...BULK, values: ['ab-1', 'AB-1', 'CD-2'] });
      upstream.handler = answering('Élan', 'STRASSE-1');
      const accents = await reader.readMany({
        ...BULK,
        values: ['Élan', 'élan', 'Elan', 'E\u0301lan', 'STRASSE-1', 'straße-1', 'Other'],
      });
      reader.close();
      assert.deepEqual(summary(both), { 'CD-2': 'target.not_found' });
      assert.deepEqual(summary(one), { 'AB-1': 'record', 'CD-2': 'target.not_found' });
      assert.deepEqual(summary(accents), {
        Élan: 'record',
        'STRASSE-1': 'record',
        Other: 'target.not_found',
      });
    });

    it('reads singly a value whose row another row answered may respell: the same number or instant', async () => {
      const reader = bulk();
      // Two records, each answered under its own spelling of 7: a source comparing numbers finds both for either.
      upstream.handler = answering('7', '07');
      const numbers = await reader.readMany({ ...BULK, values: ['7', '07', '8'] });
      // The same instant in two zones: a source comparing instants finds both for either.
      upstream.handler = answering('2020-01-01T00:00:00Z', '2020-01-01T01:00:00+01:00');
      const instants = await reader.readMany({
        ...BULK,
        values: ['2020-01-01T00:00:00Z', '2020-01-01T01:00:00+01:00', '2021-06-01'],
      });
      // Identifiers that merely start with a date are not instants: each row is its value's own.
      upstream.handler = answering('2020-01-01-0041', '2020-01-01-0042');
      const cases = await reader.readMany({ ...BULK, values: ['2020-01-01-0041', '2020-01-01-0042'] });
      reader.close();
      assert.deepEqual(summary(numbers), { '8': 'target.not_found' });
      assert.deepEqual(summary(instants), { '2021-06-01': 'target.not_found' });
      assert.deepEqual(summary(cases), { '2020-01-01-0041': 'record', '2020-01-01-0042': 'record' });
    });

    it('asks again in halves when a bulk answer is too large: every value settled, one request per half', async () => {
      const rows = Array.from({ length: 120 }, (_, index) => ({
        national_id: `N-${index}`,
        deceased: false,
        notes: 'x'.repeat(12_000),
      }));
      upstream.handler = table(rows);
      const reader = bulk({ bulk_max_values: 100 });
      let sent = 0;
      const trace = counter();
      const values = rows.slice(0, 100).map((row) => row.national_id);
      const settled = await reader.readMany({
        ...BULK,
        values,
        trace,
        requests: { requestSent: () => sent++ },
      });
      reader.close();
      assert.equal(settled.size, 100);
      assert.ok([...settled.values()].every((entry) => 'record' in entry));
      assert.deepEqual(
        upstream.requests.map((request) => inList(request)?.length),
        [100, 50, 50],
      );
      assert.equal(sent, 3, 'every request sent is counted');
      assert.equal(trace.sent, 1, 'the read is traced once');
      assert.deepEqual(upstream.sleeps, []);
    });

    it('isolates a value with several records in halves when it fills the page: its neighbours are not read singly', async () => {
      const rows = Array.from({ length: 100 }, (_, index) => ({
        national_id: `N-${index}`,
        deceased: false,
      }));
      rows.push({ national_id: 'N-50', deceased: true });
      upstream.handler = table(rows);
      const reader = bulk({ bulk_max_values: 100 });
      const values = Array.from({ length: 100 }, (_, index) => `N-${index}`);
      const settled = await reader.readMany({ ...BULK, values });
      // N-50's second record is cut from every page that holds N-50 with its neighbours: halving isolates it with the
      // last of them, both left to their single reads; every other value is settled by a complete page.
      const alone = ['N-50', 'N-51'];
      assert.deepEqual(
        summary(settled),
        Object.fromEntries(
          values.filter((value) => !alone.includes(value)).map((value) => [value, 'record']),
        ),
      );
      // A request per halving that still holds it, not one per subject.
      assert.deepEqual(
        upstream.requests.map((request) => inList(request)?.length),
        [100, 50, 50, 25, 25, 13, 12, 7, 6, 4, 3, 2, 2],
      );
      const ambiguous = await failure(reader.read({ ...LOOKUP, value: 'N-50' }));
      reader.close();
      assert.equal(auditCodeOf(ambiguous), 'target.match_ambiguous');
    });

    it('narrows an invalid bulk answer down to the value whose record is at fault, left to its single read', async () => {
      const deep = `{"national_id":"V-3","deep":${'['.repeat(40)}${']'.repeat(40)}}`;
      const rows = Array.from({ length: 10 }, (_, index) =>
        index === 3 ? { national_id: 'V-3', raw: deep } : { national_id: `V-${index}`, deceased: false },
      );
      upstream.handler = table(rows);
      const reader = bulk();
      const values = rows.map((row) => row.national_id);
      const settled = await reader.readMany({ ...BULK, values });
      // V-3 and the one value it was last asked with are left to single reads.
      assert.deepEqual(
        [...settled.keys()].sort(),
        values.filter((value) => value !== 'V-3' && value !== 'V-4'),
      );
      assert.ok([...settled.values()].every((entry) => 'record' in entry));
      // Halves of 10, 5, 3 and 2 values: a value alone is never asked with `.in`.
      assert.deepEqual(
        upstream.requests.map((request) => inList(request)),
        [values, values.slice(0, 5), values.slice(5), ['V-0', 'V-1', 'V-2'], ['V-3', 'V-4']],
      );
      // Its single read fails its own subject only, as it would have alone.
      const problem = await failure(reader.read({ ...LOOKUP, value: 'V-3' }));
      const alone = await reader.read({ ...LOOKUP, value: 'V-4' });
      reader.close();
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', 'source.invalid_response'],
      );
      assert.equal(alone.row.national_id, 'V-4');
    });

    it('gives the values of a half the source fails the outcome single reads would have, the other half its own', async () => {
      upstream.handler = (request, response) => {
        const asked = inList(request) ?? [];
        if (asked.length === 4)
          json(response, 200, { data: [{ national_id: 'A', deep: 'x'.repeat(1024 * 1024) }] });
        else if (asked.includes('A')) json(response, 500, {});
        else table(asked.map((value) => ({ national_id: value })))(request, response);
      };
      const reader = bulk();
      const settled = await reader.readMany({ ...BULK, values: ['A', 'B', 'C', 'D'] });
      reader.close();
      assert.deepEqual(summary(settled), {
        A: 'source.http_500',
        B: 'source.http_500',
        C: 'record',
        D: 'record',
      });
      assert.equal(upstream.requests.length, 3);
    });

    it('counts every request sent, retries included, and tells the trace once', async () => {
      let calls = 0;
      upstream.handler = (request, response) => {
        calls++;
        if (calls % 3 !== 0) json(response, 503, {}, { 'retry-after': '0' });
        else table([{ national_id: 'A' }, { national_id: 'B' }])(request, response);
      };
      const reader = bulk();
      const sent = { bulk: 0, single: 0 };
      const trace = counter();
      const settled = await reader.readMany({
        ...BULK,
        values: ['A', 'B'],
        trace,
        requests: { requestSent: () => sent.bulk++ },
      });
      const record = await reader.read({
        ...LOOKUP,
        value: 'A',
        requests: { requestSent: () => sent.single++ },
      });
      reader.close();
      assert.equal(settled.size, 2);
      assert.equal(record.row.national_id, 'A');
      assert.equal(upstream.requests.length, 6);
      assert.deepEqual(sent, { bulk: 3, single: 3 });
      assert.equal(trace.sent, 1);
    });

    it('falls back to single reads when the source refuses the bulk form, and fails when it is unavailable', async () => {
      const reader = bulk();
      upstream.handler = (_request, response) =>
        json(
          response,
          400,
          { code: 'entity.filter_required' },
          { 'content-type': 'application/problem+json' },
        );
      assert.equal((await reader.readMany({ ...BULK, values: ['A', 'B'] })).size, 0);
      assert.equal(upstream.requests.length, 1, 'a refusal is not retried');
      upstream.handler = (_request, response) => json(response, 503, {});
      const problem = await failure(reader.readMany({ ...BULK, values: ['A', 'B'] }));
      reader.close();
      assert.equal(problem.code, 'source.unavailable');
      assert.equal(upstream.requests.length, 4, 'retried like a single read');
    });
  });
});

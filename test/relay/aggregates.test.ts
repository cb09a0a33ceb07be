// Aggregate execution over the demo data: results against the files, disclosure modes, limits, formats, caching, audit.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Response } from 'light-my-request';
import { fixedClock } from '../../src/platform/clock.ts';
import { DEMO_DIR, PURPOSE, startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { type DemoData, type Row, readDemoData } from './read-demo-data.ts';

const SP = '/v1/datasets/social_protection/aggregates';
const PAYMENTS = `${SP}/payments_by_district`;
const HOUSEHOLDS = `${SP}/households_by_district`;
const PERSONS = '/v1/datasets/civil_registry/aggregates/persons_by_district';
const BEDS = '/v1/datasets/health_facilities/aggregates/beds_by_district';
const SDMX = 'application/vnd.sdmx.data+json;version=2.1';
const NOW = '2026-03-01T12:00:00.000Z';
/** What the social protection aggregates say they are of: the workbook's modification time, not the clock. */
const WORKBOOK_TIME = new Date(
  Math.floor(statSync(join(DEMO_DIR, 'data/social_protection.xlsx')).mtimeMs),
).toISOString();

/** Groups rows by the given key function, in the relay's order (ascending text keys). */
function groupsOf(rows: readonly Row[], key: (row: Row) => string): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))) {
    groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  }
  return groups;
}

const cents = (value: number) => Math.round(value * 100);

describe('aggregate execution (demo)', () => {
  let relay: TestRelay;
  let data: DemoData;
  let districtOf: Map<unknown, unknown>;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    relay.inject({
      method: 'POST',
      url: path,
      headers: {
        authorization: `Bearer ${TEST_KEYS.analyst}`,
        'content-type': 'application/json',
        ...headers,
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = (path: string, headers: Record<string, string> = {}) =>
    relay.get(path, { as: 'analyst', headers });

  before(async () => {
    relay = await startDemoRelay({ clock: fixedClock(NOW) });
    data = await readDemoData();
    districtOf = new Map(data.households.map((h) => [h.household_id, h.district]));
  });
  after(() => relay.close());

  it('computes payments per household district (a relationship dimension) as the files say', async () => {
    const response = await get(PAYMENTS);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    const body = response.json();
    const expected = groupsOf(data.payments, (p) => String(districtOf.get(p.household_id)));
    assert.deepEqual(
      body.observations.map((o: Record<string, unknown>) => o.district),
      [...expected.keys()],
    );
    for (const observation of body.observations) {
      const rows = expected.get(observation.district) ?? [];
      const amounts = rows.map((row) => row.amount as number);
      assert.equal(observation.payments, rows.length);
      assert.equal(cents(observation.total_amount), cents(amounts.reduce((a, b) => a + b, 0)));
      assert.equal(observation.households_paid, new Set(rows.map((row) => row.household_id)).size);
      assert.equal(observation.attributes, undefined);
    }
    assert.deepEqual(body.completeness, { complete: true, truncated: false });
    assert.deepEqual(body.freshness, { computed_at: WORKBOOK_TIME, as_of: WORKBOOK_TIME });
    assert.equal(body.disclosure_control.suppression, 'mask');
    assert.equal(body.disclosure_control.suppressed_observations, null, 'hidden on personal data');
    const total = body.structure.measures.find((m: { id: string }) => m.id === 'total_amount');
    assert.equal(total.definition_uri, 'https://vocab.example.org/ambit-demo/measures/total-amount');
    assert.deepEqual(body.structure.dimensions[0].field, 'household.district');
  });

  it('masks groups below the minimum cell size, keeping their keys (suppression: mask)', async () => {
    const body = (
      await get(`${PAYMENTS}?group_by=district,payment_status&measures=payments,total_amount`)
    ).json();
    const expected = groupsOf(data.payments, (p) => `${districtOf.get(p.household_id)}|${p.payment_status}`);
    assert.equal(body.observations.length, expected.size);
    let masked = 0;
    for (const observation of body.observations) {
      const size = expected.get(`${observation.district}|${observation.payment_status}`)?.length ?? 0;
      if (size < 5) {
        masked++;
        assert.equal(observation.payments, null);
        assert.equal(observation.total_amount, null);
        assert.deepEqual(observation.attributes, { payments$status: 'S', total_amount$status: 'S' });
      } else {
        assert.equal(observation.payments, size);
      }
    }
    assert.ok(masked > 0, 'the demo data has small status groups');
    assert.deepEqual(body.completeness, { complete: false, truncated: false });
    assert.equal(body.disclosure_control.suppressed_observations, null);
  });

  it('omits small groups and hides their number on personal data (suppression: omit)', async () => {
    const body = (await get(HOUSEHOLDS)).json();
    const expected = groupsOf(data.households, (h) => `${h.district}|${h.poverty_band}`);
    const kept = [...expected].filter(([, rows]) => rows.length >= 5);
    assert.ok(kept.length < expected.size);
    assert.deepEqual(
      body.observations.map((o: Record<string, unknown>) => [
        `${o.district}|${o.poverty_band}`,
        o.households,
      ]),
      kept.map(([key, rows]) => [key, rows.length]),
    );
    assert.ok(!body.observations.some((o: Record<string, unknown>) => o.district === 'dunmere'));
    assert.equal(body.disclosure_control.suppressed_observations, null);
    assert.deepEqual(body.completeness, { complete: false, truncated: false });
  });

  it('does not tell an omitted small cell from an empty one where their number is hidden', async () => {
    const sizes = groupsOf(data.households, (h) => `${h.district}|${h.enrollment_status}`);
    const small = [...sizes].find(([, rows]) => rows.length > 0 && rows.length < 5)?.[0];
    assert.ok(small, 'the demo data has a small district and status cell');
    const [district, status] = small.split('|');
    const cell = async (query: string) => {
      const response = await get(`${HOUSEHOLDS}?group_by=&measures=households&${query}`, {
        accept: 'text/csv',
      });
      assert.equal(response.statusCode, 200, response.body);
      return [response.body, response.headers['x-ambit-completeness']];
    };
    const omitted = await cell(`district=${district}&enrollment_status=${status}`);
    const empty = await cell(`district=${district}&enrollment_status=no_such_status`);
    assert.deepEqual(omitted, empty);
    const json = (await get(`${HOUSEHOLDS}?group_by=&district=${district}&enrollment_status=none`)).json();
    assert.deepEqual(json.observations, []);
    assert.deepEqual(json.completeness, { complete: false, truncated: false });
  });

  it('reports the number of suppressed groups where configured or on non-personal data (null mode)', async () => {
    const persons = (await get(PERSONS, { 'data-purpose': PURPOSE })).json();
    const bySexDistrict = groupsOf(data.persons, (p) => `${p.district}|${p.sex}`);
    const small = [...bySexDistrict.values()].filter((rows) => rows.length < 5).length;
    assert.equal(persons.disclosure_control.suppression, 'null');
    assert.equal(persons.disclosure_control.suppressed_observations, small);
    assert.equal(persons.observations.filter((o: { persons: unknown }) => o.persons === null).length, small);
    const beds = (await get(BEDS)).json();
    const byTypeDistrict = groupsOf(data.facilities, (f) => `${f.district}|${f.facility_type}`);
    const omitted = [...byTypeDistrict.values()].filter((rows) => rows.length < 3).length;
    assert.equal(beds.disclosure_control.suppressed_observations, omitted);
    assert.equal(beds.observations.length, byTypeDistrict.size - omitted);
  });

  it('applies filters, temporal ranges and relationship filters alike by GET and POST', async () => {
    const byGet = (
      await get(`${PAYMENTS}?group_by=cycle&household.district=lakeside&cycle.gte=2026-03`)
    ).json();
    const byPost = (
      await post(`${PAYMENTS}/query`, {
        group_by: ['cycle'],
        filters: { 'household.district': 'lakeside' },
        temporal: { from: '2026-03' },
      })
    ).json();
    assert.deepEqual(byPost.observations, byGet.observations);
    const expected = groupsOf(
      data.payments.filter(
        (p) => districtOf.get(p.household_id) === 'lakeside' && String(p.cycle) >= '2026-03',
      ),
      (p) => String(p.cycle),
    );
    assert.deepEqual(
      byGet.observations.map((o: Record<string, unknown>) => [o.cycle, o.payments]),
      [...expected].map(([cycle, rows]) => [cycle, rows.length]),
    );
    const one = (
      await post(`${PAYMENTS}/query`, { group_by: [], temporal: { from: '2026-06', to: '2026-06' } })
    ).json();
    assert.equal(one.observations[0].payments, data.payments.filter((p) => p.cycle === '2026-06').length);
  });

  it('links every answer to its own query, whatever its spelling or method', async () => {
    const posted = await post(`${PAYMENTS}/query`, {
      group_by: ['cycle'],
      filters: { 'household.district': 'lakeside' },
      temporal: { from: '2026-03' },
    });
    assert.equal(posted.statusCode, 200, posted.body);
    const links = new Map<string, string>(
      posted
        .json()
        .links.map((link: { rel: string; type: string; href: string }) => [
          `${link.rel} ${link.type}`,
          link.href,
        ]),
    );
    assert.match(links.get('self application/json') as string, /\/payments_by_district\/query$/);
    // Each alternate runs the posted query in its format: same observations.
    const observations = posted.json().observations;
    for (const [key, format] of [
      ['alternate text/csv', 'csv'],
      ['alternate application/vnd.sdmx.data+json;version=2.1', 'sdmx-json'],
    ] as const) {
      const href = links.get(key) as string;
      const url = new URL(href);
      assert.equal(url.searchParams.get('f'), format);
      assert.equal(url.searchParams.get('group_by'), 'cycle');
      assert.equal(url.searchParams.get('household.district'), 'lakeside');
      assert.equal(url.searchParams.get('cycle.gte'), '2026-03');
      url.searchParams.set('f', 'json');
      const again = (await get(`${url.pathname}${url.search}`)).json();
      assert.deepEqual(again.observations, observations);
    }
    // Two spellings of one GET query: one ETag, one body (its links included).
    const first = await get(`${PAYMENTS}?group_by=cycle&household.district=lakeside&cycle.gte=2026-03`);
    const second = await get(
      `${PAYMENTS}?cycle.gte=2026-03&household.district.eq=lakeside&max_rows=10000&group_by=cycle`,
    );
    assert.equal(first.headers.etag, second.headers.etag);
    assert.equal(first.body, second.body);
    const sdmx = await post(`${PAYMENTS}/query`, { group_by: ['cycle'], format: 'sdmx-json' });
    const self = sdmx.json().data.structures[0].links.find((link: { rel: string }) => link.rel === 'self')
      .href as string;
    assert.equal(new URL(self).searchParams.get('group_by'), 'cycle');
  });

  it('links a temporal range as its bounds where GET allows no between, and refuses listed values with commas', async () => {
    const edited = await startDemoRelay({
      edit: (text) => {
        // The aggregate's own filter rules (indented less than the entity's).
        const from =
          '\n          - { field: cycle, ops: [eq, in, gte, lte, between] }\n          - { field: payment_status';
        assert.ok(text.includes(from), 'the demo aggregate allows between on cycle');
        return text.replace(
          from,
          '\n          - { field: cycle, ops: [eq, in, gte, lte] }\n          - { field: payment_status',
        );
      },
    });
    try {
      const post = (body: unknown) =>
        edited.inject({
          method: 'POST',
          url: `${PAYMENTS}/query`,
          headers: { authorization: `Bearer ${TEST_KEYS.analyst}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
      const posted = await post({ group_by: ['cycle'], temporal: { from: '2026-03', to: '2026-06' } });
      assert.equal(posted.statusCode, 200, posted.body);
      const csv = posted.json().links.find((link: { type: string }) => link.type === 'text/csv')
        .href as string;
      const url = new URL(csv);
      assert.equal(url.searchParams.get('cycle.gte'), '2026-03');
      assert.equal(url.searchParams.get('cycle.lte'), '2026-06');
      const again = await edited.get(`${url.pathname}${url.search}`, { as: 'analyst' });
      assert.equal(again.statusCode, 200, again.body);
      const comma = await post({ filters: { payment_status: ['paid,failed'] } });
      assert.equal(comma.statusCode, 400, comma.body);
      assert.equal(comma.json().code, 'filter.invalid_value');
    } finally {
      await edited.close();
    }
  });

  it('enforces required filters, limits and truncation', async () => {
    const edited = await startDemoRelay({
      edit: (text) =>
        text.replace(
          '        temporal_field: cycle\n',
          '        temporal_field: cycle\n        required_filters: [payment_status]\n',
        ),
    });
    try {
      const missing = await edited.get(PAYMENTS, { as: 'analyst' });
      assertProblem(missing, 400, 'aggregate.filter_required', 'one of: payment_status');
      const inOnly = await edited.get(`${PAYMENTS}?payment_status.in=paid,failed`, { as: 'analyst' });
      assertProblem(inOnly, 400, 'aggregate.filter_required');
      assert.equal((await edited.get(`${PAYMENTS}?payment_status=paid`, { as: 'analyst' })).statusCode, 200);
    } finally {
      await edited.close();
    }
    assertProblem(await get(`${PAYMENTS}?max_rows=10001`), 400, 'aggregate.limit_exceeded');
    assertProblem(
      await get(`${PAYMENTS}?group_by=district,cycle,payment_status,payment_channel,district,cycle`),
      400,
      'aggregate.limit_exceeded',
    );
    const measures = Array.from({ length: 21 }, () => 'payments');
    assertProblem(await post(`${PAYMENTS}/query`, { measures }), 400, 'aggregate.limit_exceeded');
    const filters = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, 'x']));
    assertProblem(await post(`${PAYMENTS}/query`, { filters }), 400, 'filter.too_many_filters');
    assertProblem(
      await get(`${PAYMENTS}?measures=payment`),
      400,
      'aggregate.unknown_measure',
      /did you mean `payments`/,
    );
    assertProblem(await get(`${PAYMENTS}?group_by=region`), 400, 'aggregate.unknown_dimension');
    assertProblem(await get(`${PAYMENTS}?amount.gte=1`), 400, 'filter.not_allowed');
    const cut = (await get(`${PAYMENTS}?group_by=district,cycle&max_rows=4`)).json();
    assert.equal(cut.observations.length, 4);
    assert.deepEqual(cut.completeness, { complete: false, truncated: true });
  });

  it('negotiates the format: f over body format over Accept, q-values, 400 otherwise, Vary: Accept always', async () => {
    const type = (response: Response) => String(response.headers['content-type']);
    assert.equal(
      type(await get(PAYMENTS, { accept: 'text/csv' })),
      'text/csv; charset=utf-8; header=present',
    );
    assert.equal(type(await get(PAYMENTS, { accept: SDMX })), SDMX);
    assert.equal(
      type(await get(PAYMENTS, { accept: `${SDMX};q=0, application/json;q=0.1` })),
      'application/json; charset=utf-8',
    );
    assert.equal(
      type(await get(PAYMENTS, { accept: 'text/csv;q=0.4, application/json;q=0.9' })),
      'application/json; charset=utf-8',
    );
    assert.equal(
      type(await get(`${PAYMENTS}?f=csv`, { accept: SDMX })),
      'text/csv; charset=utf-8; header=present',
    );
    assert.equal(
      type(await post(`${PAYMENTS}/query`, { format: 'sdmx-json' }, { accept: 'text/csv' })),
      SDMX,
    );
    assert.equal(
      type(await post(`${PAYMENTS}/query?f=json`, { format: 'csv' })),
      'application/json; charset=utf-8',
    );
    const refused = await get(PAYMENTS, { accept: 'application/xml' });
    assertProblem(refused, 400, 'aggregate.format_unsupported');
    assert.equal(refused.headers.vary, 'Accept');
    assertProblem(await get(`${PAYMENTS}?f=xlsx`), 400, 'aggregate.format_unsupported');
    assertProblem(
      await get(PAYMENTS, { accept: 'application/vnd.sdmx.data+json;version=1.0' }),
      400,
      'aggregate.format_unsupported',
    );
    assertProblem(await post(`${PAYMENTS}/query`, { format: 'xml' }), 400, 'aggregate.format_unsupported');
    for (const response of [
      await get(PAYMENTS),
      await get(`${PAYMENTS}?f=csv`),
      await get(`${PAYMENTS}?f=sdmx-json`),
    ]) {
      assert.equal(response.headers.vary, 'Accept');
      assert.equal(response.headers.link, `<http://127.0.0.1:4242${PAYMENTS}/structure>; rel="describedby"`);
    }
  });

  it('serves CSV with exact headers, status columns and metadata headers', async () => {
    const response = await get(
      `${PAYMENTS}?f=csv&group_by=district,payment_status&measures=payments,total_amount`,
    );
    const rows = parse(response.body) as string[][];
    assert.deepEqual(rows[0], [
      'district',
      'payment_status',
      'payments',
      'total_amount',
      'payments$status',
      'total_amount$status',
    ]);
    assert.ok(rows.some((row) => row[4] === 'S' && row[2] === ''));
    assert.ok(response.body.endsWith('\r\n'));
    const disclosure = JSON.parse(String(response.headers['x-ambit-disclosure-control']));
    assert.deepEqual(disclosure.method, ['k-anonymity']);
    assert.equal(disclosure.suppressed_observations, null);
    assert.deepEqual(JSON.parse(String(response.headers['x-ambit-freshness'])), {
      computed_at: WORKBOOK_TIME,
      as_of: WORKBOOK_TIME,
    });
    assert.deepEqual(JSON.parse(String(response.headers['x-ambit-completeness'])), {
      complete: false,
      truncated: false,
    });
  });

  it('answers If-None-Match with 304 per query, format and method; validation comes first', async () => {
    const first = await get(`${PAYMENTS}?group_by=cycle`);
    const etag = String(first.headers.etag);
    assert.match(etag, /^"sha256:[0-9a-f]{64}"$/);
    const again = await get(`${PAYMENTS}?group_by=cycle`, { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers.etag, etag);
    assert.equal(again.headers.vary, 'Accept');
    assert.equal((await get(`${PAYMENTS}?group_by=cycle`, { 'if-none-match': `W/${etag}` })).statusCode, 304);
    // The same rows in the same order and the same answer bytes: filters in another order share the tag.
    const reordered = [
      await get(`${PAYMENTS}?cycle.gte=2026-02&payment_status=paid`),
      await get(`${PAYMENTS}?payment_status=paid&cycle.gte=2026-02`),
    ];
    assert.equal(reordered[0]?.headers.etag, reordered[1]?.headers.etag);
    assert.equal(reordered[0]?.body, reordered[1]?.body);
    for (const other of [
      `${PAYMENTS}?group_by=cycle&f=csv`,
      `${PAYMENTS}?group_by=cycle&max_rows=2`,
      `${PAYMENTS}?group_by=district`,
    ]) {
      const response = await get(other, { 'if-none-match': etag });
      assert.equal(response.statusCode, 200, other);
      assert.notEqual(response.headers.etag, etag);
    }
    assert.equal(
      (await get(`${PAYMENTS}?group_by=cycle`, { 'if-none-match': etag, accept: 'text/csv' })).statusCode,
      200,
    );
    assertProblem(
      await get(`${PAYMENTS}?group_by=cycle&max_rows=0`, { 'if-none-match': '*' }),
      400,
      'aggregate.limit_exceeded',
    );
    const posted = await post(`${PAYMENTS}/query`, { group_by: ['cycle'] }, { 'if-none-match': etag });
    assert.equal(posted.statusCode, 200);
    assert.equal(
      (
        await post(
          `${PAYMENTS}/query`,
          { group_by: ['cycle'] },
          { 'if-none-match': String(posted.headers.etag) },
        )
      ).statusCode,
      304,
    );
  });

  it('answers the same bytes under the same ETag in another process started at another time', async () => {
    // Another process (a `--workers` sibling, or a relay on another machine given the same files).
    const other = await startDemoRelay({ clock: fixedClock('2026-05-09T08:30:00.000Z') });
    try {
      for (const [path, accept] of [
        [`${PAYMENTS}?group_by=district,cycle`, 'application/json'],
        [`${PAYMENTS}?group_by=district`, 'text/csv'],
        [`${HOUSEHOLDS}?group_by=district`, SDMX],
      ] as const) {
        const here = await get(path, { accept });
        const there = await other.get(path, { as: 'analyst', headers: { accept } });
        assert.equal(here.statusCode, 200, here.body.slice(0, 300));
        assert.equal(there.headers.etag, here.headers.etag, path);
        assert.equal(there.body, here.body, path);
        assert.equal(there.headers['x-ambit-freshness'], here.headers['x-ambit-freshness'], path);
        // The ETag one process gave revalidates at the other.
        const revalidated = await other.get(path, {
          as: 'analyst',
          headers: { accept, 'if-none-match': String(here.headers.etag) },
        });
        assert.equal(revalidated.statusCode, 304, path);
      }
      const posted = [
        await post(`${PAYMENTS}/query`, { group_by: ['cycle'] }),
        await other.inject({
          method: 'POST',
          url: `${PAYMENTS}/query`,
          headers: { authorization: `Bearer ${TEST_KEYS.analyst}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ group_by: ['cycle'] }),
        }),
      ];
      assert.equal(posted[1]?.headers.etag, posted[0]?.headers.etag);
      assert.equal(posted[1]?.body, posted[0]?.body);
      const sdmx = JSON.parse((await get(`${HOUSEHOLDS}?f=sdmx-json`)).body).meta;
      assert.equal(sdmx.prepared, WORKBOOK_TIME);
      assert.equal(sdmx['x-asOf'], WORKBOOK_TIME);
    } finally {
      await other.close();
    }
  });

  it('reads the POST body only after authentication, and only as JSON', async () => {
    const noKey = await relay.inject({
      method: 'POST',
      url: `${PAYMENTS}/query`,
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    assertProblem(noKey, 401, 'auth.missing_credential');
    assertProblem(await post(`${PAYMENTS}/query`, '{nope'), 400, 'http.invalid_body');
    assertProblem(
      await post(`${PAYMENTS}/query`, 'group_by=cycle', {
        'content-type': 'application/x-www-form-urlencoded',
      }),
      415,
      'http.unsupported_media_type',
    );
    assertProblem(
      await post(`${PAYMENTS}/query`, { groupby: ['cycle'] }),
      400,
      'aggregate.invalid_query',
      /did you mean `group_by`/,
    );
    assertProblem(await post(`${PAYMENTS}/query?group_by=cycle`, {}), 400, 'aggregate.invalid_query');
    const empty = await relay.inject({
      method: 'POST',
      url: `${PAYMENTS}/query`,
      headers: { authorization: `Bearer ${TEST_KEYS.analyst}` },
    });
    assert.equal(empty.statusCode, 200, empty.body);
    assert.deepEqual(empty.json().observations, (await get(PAYMENTS)).json().observations);
  });

  it('audits aggregate id, groups, suppressed groups and scopes', async () => {
    await get(`${PAYMENTS}?group_by=district,payment_status&cycle=2026-01`, {
      'x-request-id': 'agg-audit-1',
    });
    const record = relay.auditRecords().find((r) => r.client_request_id === 'agg-audit-1');
    assert.ok(record);
    assert.equal(record.endpoint_kind, 'aggregate');
    assert.equal(record.aggregate_id, 'payments_by_district');
    assert.equal(record.entity_name, 'payments');
    assert.deepEqual(record.scopes_used, ['social_protection:aggregate']);
    assert.equal(typeof record.row_count, 'number');
    assert.ok((record.suppressed_groups as number) > 0, 'the audit keeps the count the caller does not see');
    assert.deepEqual(record.query_params, {
      f: { op: 'param' },
      measures: { op: 'param' },
      group_by: { op: 'param' },
      max_rows: { op: 'param' },
      'cycle.eq': { op: 'eq' },
    });
  });
});

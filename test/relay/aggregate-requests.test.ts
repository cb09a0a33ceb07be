// Demo aggregate requests: self links to each query, temporal bounds in links, required filters, limits and
// truncation, the POST body read only after authentication, and the audit record.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDemoRelay, TEST_KEYS } from '../helpers/relay-harness.ts';
import { PAYMENTS, useDemoAggregates } from './aggregates-fixture.ts';
import { assertProblem } from './assert-problem.ts';

describe('aggregate execution (demo)', () => {
  const setup = useDemoAggregates();

  it('links every answer to its own query, whatever its spelling or method', async () => {
    const { post, get } = setup;
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

  it('refuses a reserved parameter sent beside its `.eq` form as a repeat, as on entity reads', async () => {
    const { get } = setup;
    for (const query of [
      'group_by=cycle&f=json&f.eq=csv',
      'group_by=cycle&group_by.eq=district',
      'group_by=cycle&measures=total_amount&measures.eq=total_amount',
      'group_by=cycle&max_rows=5&max_rows.eq=6',
    ]) {
      const response = await get(`${PAYMENTS}?${query}`);
      assertProblem(response, 400, 'filter.invalid_value', /is repeated/);
    }
  });

  it('refuses a temporal range whose bound holds a comma, as a between filter does: its link could not say it', async () => {
    const { post } = setup;
    for (const body of [
      { group_by: ['cycle'], temporal: { from: '2026,01', to: '2026-06' } },
      { group_by: ['cycle'], filters: { cycle: { from: '2026,01', to: '2026-06' } } },
    ]) {
      const response = await post(`${PAYMENTS}/query`, body);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().code, 'filter.invalid_value');
    }
    // One bound is written alone in the link, so a comma in it is fine.
    const one = await post(`${PAYMENTS}/query`, { group_by: ['cycle'], temporal: { from: '2026,01' } });
    assert.equal(one.statusCode, 200, one.body);
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
    const { post, get } = setup;
    const edited = await startDemoRelay({
      edit: (text) =>
        text.replace(
          '        temporal_field: cycle\n',
          '        temporal_field: cycle\n        required_filters: [payment_status]\n',
        ),
    });
    try {
      const missing = await edited.get(PAYMENTS, { as: 'analyst' });
      const needs =
        'aggregate payments_by_district needs an equality filter (field=value) on one of: payment_status; an .in list or a range does not count';
      assertProblem(missing, 400, 'aggregate.filter_required', needs);
      const inOnly = await edited.get(`${PAYMENTS}?payment_status.in=paid,failed`, { as: 'analyst' });
      assertProblem(inOnly, 400, 'aggregate.filter_required', needs);
      assert.equal((await edited.get(`${PAYMENTS}?payment_status=paid`, { as: 'analyst' })).statusCode, 200);
      // A blank value is no equality, in a body as in a query string: it never stands in for the required filter.
      const postEdited = (body: unknown) =>
        edited.inject({
          method: 'POST',
          url: `${PAYMENTS}/query`,
          headers: { authorization: `Bearer ${TEST_KEYS.analyst}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
      for (const blank of ['  ', '\t', '']) {
        assertProblem(
          await postEdited({ filters: { payment_status: blank } }),
          400,
          'filter.invalid_value',
          '`payment_status` has no value',
        );
      }
      assertProblem(
        await edited.get(`${PAYMENTS}?payment_status=%20%20`, { as: 'analyst' }),
        400,
        'filter.invalid_value',
        '`payment_status` has no value',
      );
      assert.equal((await postEdited({ filters: { payment_status: 'paid' } })).statusCode, 200);
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

  it('reads the POST body only after authentication, and only as JSON', async () => {
    const { relay, post, get } = setup;
    const noKey = await relay.inject({
      method: 'POST',
      url: `${PAYMENTS}/query`,
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    assertProblem(noKey, 401, 'auth.missing_credential');
    assertProblem(await post(`${PAYMENTS}/query`, '{nope'), 400, 'http.invalid_body');
    // Read leniently, bytes that are not UTF-8 would be U+FFFD, another byte string the same filter value.
    const notUtf8 = Buffer.concat([
      Buffer.from('{"filters":{"household.district":"lake'),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]);
    assertProblem(await post(`${PAYMENTS}/query`, notUtf8), 400, 'http.invalid_body', /not UTF-8/);
    assertProblem(
      await post(`${PAYMENTS}/query`, '{"group_by":["district"],"group_by":["cycle"]}'),
      400,
      'http.invalid_body',
      /twice/,
    );
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
    // A coded body is not decoded: it would be read as its compressed bytes, or taken for what it is not.
    const gzipped = await post(`${PAYMENTS}/query`, {}, { 'content-encoding': 'gzip' });
    assertProblem(gzipped, 415, 'http.unsupported_media_type', /Content-Encoding/);
    assert.equal(gzipped.headers['accept-encoding'], 'identity');
    assert.equal((await post(`${PAYMENTS}/query`, {}, { 'content-encoding': 'Identity' })).statusCode, 200);
    // Without a credential, 401 still comes first.
    const coded = await relay.inject({
      method: 'POST',
      url: `${PAYMENTS}/query`,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: '{}',
    });
    assertProblem(coded, 401, 'auth.missing_credential');
    const empty = await relay.inject({
      method: 'POST',
      url: `${PAYMENTS}/query`,
      headers: { authorization: `Bearer ${TEST_KEYS.analyst}` },
    });
    assert.equal(empty.statusCode, 200, empty.body);
    assert.deepEqual(empty.json().observations, (await get(PAYMENTS)).json().observations);
  });

  it('audits aggregate id, groups, suppressed groups and scopes', async () => {
    const { relay, get } = setup;
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

// Demo aggregate formats and caching: format negotiation, CSV output, If-None-Match and 304, and the same bytes
// under the same ETag from another process started at another time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Response } from 'light-my-request';
import { fixedClock } from '../../src/platform/clock.ts';
import { startDemoRelay, TEST_KEYS } from '../helpers/relay-harness.ts';
import { HOUSEHOLDS, PAYMENTS, SDMX, useDemoAggregates, WORKBOOK_TIME } from './aggregates-fixture.ts';
import { assertProblem } from './assert-problem.ts';

describe('aggregate execution (demo)', () => {
  const setup = useDemoAggregates();

  it('negotiates the format: f over body format over Accept, q-values, 400 otherwise, Vary: Accept always', async () => {
    const { post, get } = setup;
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
    const { get } = setup;
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
    const { post, get } = setup;
    const first = await get(`${PAYMENTS}?group_by=cycle`);
    const etag = String(first.headers.etag);
    // Weak: the data time the answer states is left out (it differs between processes reading equal data).
    assert.match(etag, /^W\/"sha256:[0-9a-f]{64}"$/);
    const again = await get(`${PAYMENTS}?group_by=cycle`, { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers.etag, etag);
    assert.equal(again.headers.vary, 'Accept');
    assert.equal(
      (await get(`${PAYMENTS}?group_by=cycle`, { 'if-none-match': etag.slice(2) })).statusCode,
      304,
    );
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
    // Only GET and HEAD are answered 304 (RFC 9110 §13.1.2): a POST's matching tag is refused.
    assertProblem(
      await post(
        `${PAYMENTS}/query`,
        { group_by: ['cycle'] },
        { 'if-none-match': String(posted.headers.etag) },
      ),
      412,
      'http.precondition_failed',
    );
  });

  it('answers the same bytes under the same ETag in another process started at another time', async () => {
    const { post, get } = setup;
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

  it('changes the ETag when the aggregate is declared otherwise, though the data is the same', async () => {
    const { get } = setup;
    // The operator raised the minimum cell size: the same files now give other masked groups.
    const other = await startDemoRelay({
      edit: (text) =>
        text.replace(
          'min_cell_size: 5\n          suppression: mask',
          'min_cell_size: 50\n          suppression: mask',
        ),
    });
    try {
      const path = `${PAYMENTS}?group_by=district,cycle`;
      const here = await get(path);
      const there = await other.get(path, { as: 'analyst' });
      assert.equal(there.statusCode, 200, there.body.slice(0, 300));
      assert.notEqual(there.body, here.body);
      assert.notEqual(there.headers.etag, here.headers.etag);
      // A client holding the old answer must not be told it is still current.
      const revalidated = await other.get(path, {
        as: 'analyst',
        headers: { 'if-none-match': String(here.headers.etag) },
      });
      assert.equal(revalidated.statusCode, 200);
    } finally {
      await other.close();
    }
  });
});

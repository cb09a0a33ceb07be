// Filter values at the edges of their types, alike on records and aggregates (GET and POST): RFC 3339 timestamps
// spelled with a lower-case `t` and `z`, and numbers whose text is not zero but that no double holds but 0.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from './assert-problem.ts';
import { type CsvRelay, csvRelayHead, startCsvRelay } from './csv-relay-fixture.ts';

const RECORDS = '/v1/datasets/obs/entities/readings/records';
const AGGREGATE = '/v1/datasets/obs/aggregates/by_site';
const RANGE_OPS = '[gte, lte, between]';

const CONFIG = `${csvRelayHead(['obs:aggregate', 'obs:rows'])}datasets:
  - id: obs
    title: Observations
    sensitivity: internal
    tables:
      - id: readings_t
        source: { type: file, path: readings.csv }
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: site, type: string }
            - { name: level, type: number }
            - { name: taken_at, type: timestamp }
    entities:
      - name: readings
        table: readings_t
        api: { allowed_filters: [{ field: level, ops: ${RANGE_OPS} }, { field: taken_at, ops: ${RANGE_OPS} }] }
    aggregates:
      - id: by_site
        source_entity: readings
        default_group_by: [site]
        dimensions: [{ id: site, field: site }]
        indicators: [{ id: rows, function: count }]
        allowed_filters: [{ field: level, ops: ${RANGE_OPS} }, { field: taken_at, ops: ${RANGE_OPS} }]
        temporal_field: taken_at
        disclosure_control: { min_cell_size: 1, suppression: omit }
`;

const READINGS = `id,site,level,taken_at
1,a,0,2024-01-02T03:04:04Z
2,a,0.5,2024-01-02T03:04:05Z
3,b,-0.5,2024-01-02T03:04:06Z
4,b,2,2024-01-03T00:00:00Z
`;

const ids = (body: { data: { id: number }[] }) => body.data.map((row) => row.id);

describe('filter values at the edges of their types', () => {
  let relay: CsvRelay;
  before(async () => {
    relay = await startCsvRelay(CONFIG, { 'readings.csv': READINGS });
  });
  after(() => relay?.close());

  it('reads a timestamp with a lower-case t or z (RFC 3339 §5.6) as the upper-case one', async () => {
    const spellings = [
      ['2024-01-02T03:04:05Z', '2024-01-02t03:04:05z'],
      ['2024-01-02T03:04:05Z', '2024-01-02t03:04:05Z'],
      ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05z'],
      ['2024-01-02T04:04:05%2B01:00', '2024-01-02t04:04:05%2B01:00'],
    ];
    for (const [upper, lower] of spellings) {
      const expected = await relay.get(`${RECORDS}?taken_at.gte=${upper}`);
      assert.equal(expected.statusCode, 200, expected.body);
      assert.deepEqual(ids(expected.json()), [2, 3, 4]);
      const answer = await relay.get(`${RECORDS}?taken_at.gte=${lower}`);
      assert.equal(answer.statusCode, 200, `${lower}: ${answer.body}`);
      assert.equal(answer.body, expected.body, lower);
    }
    const between = await relay.get(`${RECORDS}?taken_at.between=2024-01-02t03:04:05z,2024-01-02t03:04:06z`);
    assert.equal(between.statusCode, 200, between.body);
    assert.deepEqual(ids(between.json()), [2, 3]);
    // Only the separator and the UTC designator: other letters stay refused.
    for (const value of ['2024-01-02x03:04:05z', '2024-01-02t03:04:05zz', 'now']) {
      assertProblem(await relay.get(`${RECORDS}?taken_at.gte=${value}`), 400, 'filter.invalid_value');
    }
  });

  it('reads a lower-case timestamp alike in aggregate filters and temporal ranges, under the same ETag', async () => {
    const upper = await relay.get(`${AGGREGATE}?taken_at.gte=2024-01-02T03:04:05Z`);
    assert.equal(upper.statusCode, 200, upper.body);
    assert.deepEqual(upper.json().observations, [
      { site: 'a', rows: 1 },
      { site: 'b', rows: 2 },
    ]);
    const lower = await relay.get(`${AGGREGATE}?taken_at.gte=2024-01-02t03:04:05z`);
    assert.equal(lower.statusCode, 200, lower.body);
    assert.deepEqual(lower.json().observations, upper.json().observations);
    assert.equal(lower.headers.etag, upper.headers.etag);
    for (const body of [
      { temporal: { from: '2024-01-02t03:04:05z' } },
      { filters: { taken_at: { from: '2024-01-02t03:04:05z' } } },
    ]) {
      const posted = await relay.post(`${AGGREGATE}/query`, body);
      assert.equal(posted.statusCode, 200, `${JSON.stringify(body)}: ${posted.body}`);
      assert.deepEqual(posted.json().observations, upper.json().observations, JSON.stringify(body));
    }
  });

  it('refuses a nonzero number that reads as the double 0, instead of comparing it as 0', async () => {
    for (const value of ['1e-400', '-1e-400', '2e-324', `0.${'0'.repeat(400)}1`, '1E-999']) {
      for (const query of [`level.gte=${value}`, `level.between=${value},1`]) {
        for (const path of [RECORDS, AGGREGATE]) {
          assertProblem(
            await relay.get(`${path}?${query}`),
            400,
            'filter.invalid_value',
            /below the smallest/,
          );
        }
      }
    }
    // As text or as a JSON number in a POST body (which JSON.parse would read as 0).
    for (const body of [
      '{"filters": {"level": {"from": 1e-400}}}',
      '{"filters": {"level": {"from": "1e-400"}}}',
    ]) {
      assertProblem(
        await relay.post(`${AGGREGATE}/query`, body),
        400,
        'filter.invalid_value',
        /below the smallest/,
      );
    }
    // Beyond the double range both ways: refused too.
    for (const value of ['1e400', '-1e400']) {
      assertProblem(await relay.get(`${RECORDS}?level.gte=${value}`), 400, 'filter.invalid_value');
      assertProblem(await relay.get(`${AGGREGATE}?level.lte=${value}`), 400, 'filter.invalid_value');
    }
  });

  it('still reads zero in any spelling, and the least doubles, as numbers', async () => {
    for (const zero of ['0', '-0', '0e-400', '0.000e999', '0.0']) {
      const answer = await relay.get(`${RECORDS}?level.gte=${zero}`);
      assert.equal(answer.statusCode, 200, `${zero}: ${answer.body}`);
      assert.deepEqual(ids(answer.json()), [1, 2, 4], zero);
    }
    const least = await relay.get(`${RECORDS}?level.gte=5e-324`);
    assert.equal(least.statusCode, 200, least.body);
    assert.deepEqual(ids(least.json()), [2, 4]);
    const posted = await relay.post(`${AGGREGATE}/query`, '{"filters": {"level": {"from": 0e-400}}}');
    assert.equal(posted.statusCode, 200, posted.body);
    assert.deepEqual(posted.json().observations, [
      { site: 'a', rows: 2 },
      { site: 'b', rows: 1 },
    ]);
  });
});

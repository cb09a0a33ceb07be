// A group large enough to show can still hold a measure computed from fewer people than the minimum cell size
// (the others have no value): an average over one income is that person's income, and a count of one income says
// that exactly one person of the group has one. Such a measure is suppressed on its own, in every format, while
// the group and its other measures stay.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { type CsvRelay, csvRelayHead, startCsvRelay } from './csv-relay-fixture.ts';

const BASE = '/v1/datasets/ppl/aggregates';

function aggregate(id: string, suppression: string): string {
  return `      - id: ${id}
        source_entity: people
        default_group_by: [district]
        dimensions: [{ id: district, field: district }]
        indicators:
          - { id: rows, function: count }
          - { id: with_income, function: count, column: income }
          - { id: incomes, function: count_distinct, column: income }
          - { id: total, function: sum, column: income }
          - { id: mean, function: avg, column: income }
          - { id: top, function: max, column: income }
          - { id: mean_age, function: avg, column: age }
        disclosure_control: { min_cell_size: 3, suppression: "${suppression}" }
`;
}

const CONFIG = `${csvRelayHead(['ppl:aggregate', 'ppl:rows'])}datasets:
  - id: ppl
    title: People
    sensitivity: internal
    tables:
      - id: people_t
        source: { type: file, path: people.csv }
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: district, type: string }
            - { name: income, type: number }
            - { name: age, type: integer, nullable: false }
    entities:
      - { name: people, table: people_t }
    aggregates:
${aggregate('masked', 'mask')}${aggregate('omitted', 'omit')}`;

// A: five people, one income (7700). B: four people, four incomes. C: two people (a small group).
const PEOPLE = `id,district,income,age
1,A,7700,30
2,A,,31
3,A,,32
4,A,,33
5,A,,34
6,B,100,40
7,B,200,41
8,B,300,42
9,B,400,43
10,C,900,50
11,C,950,51
`;

describe('aggregate measures computed from too few people', () => {
  let relay: CsvRelay;
  const get = (url: string) => relay.get(url);

  before(async () => {
    relay = await startCsvRelay(CONFIG, { 'people.csv': PEOPLE });
  });
  after(() => relay?.close());

  for (const id of ['masked', 'omitted']) {
    it(`${id}: JSON nulls the income measures of A with status S, keeps its counts and every measure of B`, async () => {
      const response = await get(`${BASE}/${id}?group_by=district`);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      const byDistrict = new Map(body.observations.map((o: { district: string }) => [o.district, o]));
      assert.deepEqual(byDistrict.get('A'), {
        district: 'A',
        rows: 5,
        with_income: null,
        incomes: null,
        total: null,
        mean: null,
        top: null,
        mean_age: 32,
        attributes: {
          with_income$status: 'S',
          incomes$status: 'S',
          total$status: 'S',
          mean$status: 'S',
          top$status: 'S',
        },
      });
      assert.deepEqual(byDistrict.get('B'), {
        district: 'B',
        rows: 4,
        with_income: 4,
        incomes: 4,
        total: 1000,
        mean: 250,
        top: 400,
        mean_age: 41.5,
      });
      // C is below the minimum as a group: masked whole, or omitted.
      if (id === 'masked') assert.equal((byDistrict.get('C') as { rows: unknown }).rows, null);
      else assert.equal(byDistrict.has('C'), false);
      assert.equal(body.completeness.complete, false);
      assert.equal(body.disclosure_control.suppressed_observations, 2, 'A (partly) and C');
      assert.ok(!response.body.includes('7700'), 'the lone income appears nowhere');
    });

    it(`${id}: CSV and SDMX say the same`, async () => {
      const csv = await get(`${BASE}/${id}?group_by=district&f=csv`);
      assert.equal(csv.statusCode, 200, csv.body);
      const rows = parse(csv.body, { columns: true }) as Record<string, string>[];
      const a = rows.find((row) => row.district === 'A');
      assert.ok(a);
      assert.equal(a.mean, '');
      assert.equal(a.total, '');
      assert.equal(a.mean$status, 'S');
      assert.equal(a.top$status, 'S');
      assert.equal(a.with_income, '', 'one income in A is a count below the minimum');
      assert.equal(a.with_income$status, 'S');
      assert.equal(a.incomes, '');
      assert.equal(a.rows$status, '');
      assert.equal(a.mean_age$status, '');
      assert.equal(a.mean_age, '32');
      const b = rows.find((row) => row.district === 'B');
      assert.equal(b?.mean, '250');
      assert.equal(b?.mean$status, '');
      assert.ok(!csv.body.includes('7700'));

      const sdmx = await get(`${BASE}/${id}?group_by=district&f=sdmx-json`);
      assert.equal(sdmx.statusCode, 200, sdmx.body);
      assert.ok(!sdmx.body.includes('7700'));
      const message = sdmx.json();
      const structure = message.data.structures[0];
      const districts = structure.dimensions.observation[0].values.map((v: { value: string }) => v.value);
      const observations = message.data.dataSets[0].observations as Record<string, unknown[]>;
      const measureCount = structure.measures.observation.length;
      const obsA = observations[String(districts.indexOf('A'))];
      const obsB = observations[String(districts.indexOf('B'))];
      const measureIds = structure.measures.observation.map((m: { id: string }) => m.id);
      // OBS_STATUS for the observation (S when any measure is suppressed), then one status per measure
      // (OBS_STATUS_<measure>), its values S (suppressed) and M (missing).
      assert.equal(obsA?.[measureCount], 0, 'A carries OBS_STATUS S');
      assert.equal(obsB?.[measureCount], null, 'B carries no OBS_STATUS');
      const status = (observation: unknown[] | undefined, measure: string) =>
        observation?.[measureCount + 1 + measureIds.indexOf(measure)];
      assert.equal(status(obsA, 'mean'), 0, 'the mean of A carries S');
      assert.equal(status(obsA, 'with_income'), 0, 'so does its count of incomes');
      assert.equal(status(obsA, 'rows'), null, 'its row count carries none');
      assert.equal(obsA?.[measureIds.indexOf('mean')], null, 'its mean is null');
      assert.equal(obsA?.[measureIds.indexOf('with_income')], null, 'so is its count of incomes');
      assert.equal(obsA?.[measureIds.indexOf('rows')], 5, 'its row count stays');
      for (const measure of measureIds)
        assert.equal(status(obsB, measure), null, `B carries no status (${measure})`);
      assert.deepEqual(
        structure.attributes.observation.map((attribute: { id: string }) => attribute.id),
        ['OBS_STATUS', ...measureIds.map((id: string) => `OBS_STATUS_${id}`)],
      );
      assert.deepEqual(structure.attributes.observation[0].values, [
        { id: 'S', name: 'Suppressed by disclosure control' },
      ]);
      assert.deepEqual(
        structure.attributes.observation[1].values.map((value: { id: string }) => value.id),
        ['S', 'M'],
      );
    });
  }

  it('omitted: a query of counts alone still carries the status of a count it suppressed, in CSV and SDMX', async () => {
    const query = `${BASE}/omitted?group_by=district&measures=rows,with_income`;
    const csv = await get(`${query}&f=csv`);
    assert.equal(csv.statusCode, 200, csv.body);
    const rows = parse(csv.body, { columns: true }) as Record<string, string>[];
    assert.deepEqual(Object.keys(rows[0] ?? {}), [
      'district',
      'rows',
      'with_income',
      'rows$status',
      'with_income$status',
    ]);
    assert.deepEqual(
      rows.find((row) => row.district === 'A'),
      {
        district: 'A',
        rows: '5',
        with_income: '',
        rows$status: '',
        with_income$status: 'S',
      },
    );
    const sdmx = await get(`${query}&f=sdmx-json`);
    assert.equal(sdmx.statusCode, 200, sdmx.body);
    const message = sdmx.json();
    const structure = message.data.structures[0];
    assert.deepEqual(
      structure.attributes.observation.map((attribute: { id: string }) => attribute.id),
      ['OBS_STATUS', 'OBS_STATUS_rows', 'OBS_STATUS_with_income'],
    );
    const districts = structure.dimensions.observation[0].values.map((v: { value: string }) => v.value);
    const observations = message.data.dataSets[0].observations as Record<string, unknown[]>;
    assert.deepEqual(observations[String(districts.indexOf('A'))], [5, null, 0, null, 0]);
    assert.deepEqual(observations[String(districts.indexOf('B'))], [4, 4, null, null, null]);
  });
});

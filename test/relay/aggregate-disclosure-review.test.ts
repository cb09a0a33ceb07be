// Adversarial review of aggregate disclosure over a small CSV dataset: small groups never show in any format, and
// every answer's links run the very query it answered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { type CsvRelay, csvRelayHead, startCsvRelay } from './csv-relay-fixture.ts';

const BASE = '/v1/datasets/ppl/aggregates';
const MIN = 3;

/** One aggregate over people; `born` takes the given operators (it is the temporal field). */
function aggregate(id: string, suppression: string, min: number, bornOps: string): string {
  return `      - id: ${id}
        source_entity: people
        default_group_by: [district]
        dimensions:
          - { id: district, field: district }
          - { id: sex, field: sex }
          - { id: region, field: household.region }
        indicators:
          - { id: rows, function: count }
          - { id: total, function: sum, column: income }
          - { id: mean, function: avg, column: income }
          - { id: top, function: max, column: income }
        allowed_filters:
          - { field: district, ops: [eq, in] }
          - { field: sex, ops: [eq, in] }
          - { field: born, ops: [${bornOps}] }
        temporal_field: born
        disclosure_control: { min_cell_size: ${min}, suppression: "${suppression}" }
`;
}

function configText(): string {
  return `${csvRelayHead(['ppl:aggregate', 'ppl:rows'])}datasets:
  - id: ppl
    title: People
    sensitivity: personal
    tables:
      - id: people_t
        source: { type: file, path: people.csv }
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: district, type: string }
            - { name: sex, type: string }
            - { name: income, type: number }
            - { name: hh_id, type: string }
            - { name: born, type: date }
      - id: hh_t
        source: { type: file, path: hh.csv }
        primary_key: id
        schema:
          fields:
            - { name: id, type: string, nullable: false }
            - { name: region, type: string }
    entities:
      - name: people
        table: people_t
        relationships:
          - { name: household, kind: belongs_to, target: households, foreign_key: hh_id }
      - name: households
        table: hh_t
    aggregates:
${aggregate('open', 'omit', 1, 'gte, lte, between')}${aggregate('masked', 'mask', MIN, 'gte, lte, between')}${aggregate('omitted', 'omit', MIN, 'gte, lte')}${aggregate('since', 'omit', MIN, 'gte')}`;
}

/**
 * 20 people: district A has 12 (two sexes), B 2, C 1, no district 2, "=cmd" 3; some incomes missing, some
 * households dangling or without a region, births over four years.
 */
function peopleCsv(): string {
  const rows = ['id,district,sex,income,hh_id,born'];
  const districts = [
    'A',
    'A',
    'A',
    'A',
    'A',
    'A',
    'A',
    'A',
    'A',
    'A',
    'A',
    'A',
    'B',
    'B',
    'C',
    '',
    '',
    '=cmd',
  ];
  districts.push('=cmd', '=cmd');
  districts.forEach((district, i) => {
    const income = i % 5 === 4 ? '' : String(100 * (i + 1));
    const household = ['h1', 'h2', 'h3', 'hx', ''][i % 5];
    rows.push(`${i + 1},${district},${i % 2 ? 'f' : 'm'},${income},${household},${1990 + (i % 4)}-01-01`);
  });
  return `${rows.join('\n')}\n`;
}

type Relay = CsvRelay;

function startRelay(): Promise<Relay> {
  return startCsvRelay(configText(), {
    'people.csv': peopleCsv(),
    'hh.csv': 'id,region\nh1,North\nh2,South\nh3,\n',
  });
}

type Observation = Record<string, unknown>;

/** The href of an answer's link of the given media type, as a path and query on the relay. */
function linkOf(body: { links: { type: string; href: string }[] }, type: string): string {
  const href = body.links.find((link) => link.type === type)?.href;
  assert.ok(href, `no ${type} link`);
  const url = new URL(href);
  return `${url.pathname}${url.search}`;
}

describe('aggregate disclosure review (CSV dataset)', () => {
  let relay: Relay;
  before(async () => {
    relay = await startRelay();
  });
  after(() => relay.close());

  it('never shows a group of fewer rows than the minimum in JSON, CSV or SDMX, whatever the keys and filters', async () => {
    const queries = [
      'group_by=district',
      'group_by=region',
      'group_by=district,sex',
      'group_by=region,sex&born.gte=1991-01-01',
      'group_by=&district=B',
      'group_by=sex&district.in=A',
      'group_by=district&max_rows=2',
    ];
    for (const query of queries) {
      // The group sizes, from the aggregate without a threshold.
      const open = await relay.get(`${BASE}/open?${query}`);
      assert.equal(open.statusCode, 200, open.body);
      const keyOf = (o: Observation) => JSON.stringify([o.district, o.sex, o.region]);
      const sizes = new Map<string, number>(
        open.json().observations.map((o: Observation) => [keyOf(o), o.rows as number]),
      );
      for (const id of ['masked', 'omitted']) {
        const url = `${BASE}/${id}?${query}`;
        const json = await relay.get(url);
        assert.equal(json.statusCode, 200, json.body);
        const observations: Observation[] = json.json().observations;
        for (const o of observations) {
          const small = (sizes.get(keyOf(o)) as number) < MIN;
          assert.equal(small ? null : sizes.get(keyOf(o)), o.rows, `${url}: ${keyOf(o)}`);
          for (const measure of ['total', 'mean', 'top']) if (small) assert.equal(o[measure], null);
          if (id === 'omitted') assert.equal(small, false, `${url} shows an omitted group`);
        }
        const csv = parse((await relay.get(`${url}&f=csv`)).body, { columns: true }) as Observation[];
        assert.deepEqual(
          csv.map((row) => row.rows),
          observations.map((o) => (o.rows === null ? '' : String(o.rows))),
          url,
        );
        const sdmx = (await relay.get(`${url}&f=sdmx-json`)).json();
        const cells = Object.values(sdmx.data.dataSets[0].observations) as (number | null)[][];
        assert.equal(cells.length, observations.length, url);
        assert.equal(
          cells.filter((cell) => cell[0] === null).length,
          observations.filter((o) => o.rows === null).length,
        );
        assert.equal(json.json().disclosure_control.suppressed_observations, null, 'hidden on personal data');
      }
    }
  });

  it('refuses an empty measures list in a POST body, as in a GET query', async () => {
    const get = await relay.get(`${BASE}/masked?measures=`);
    assert.equal(get.statusCode, 400, get.body);
    assert.equal(get.json().code, 'aggregate.invalid_query');
    for (const body of [{ measures: [] }, { indicators: [] }, { measures: [], group_by: ['district'] }]) {
      const post = await relay.post(`${BASE}/masked/query`, body);
      assert.equal(post.statusCode, 400, `${JSON.stringify(body)}: ${post.body}`);
      assert.equal(post.json().code, 'aggregate.invalid_query');
    }
  });

  it('applies a temporal range only with the operators the temporal field allows', async () => {
    // `since` allows born.gte only: an upper bound, or both, is a filter the operator did not allow.
    for (const temporal of [{ to: '1991-06-01' }, { from: '1990-06-01', to: '1991-06-01' }]) {
      const refused = await relay.post(`${BASE}/since/query`, { temporal });
      assert.equal(refused.statusCode, 400, `${JSON.stringify(temporal)}: ${refused.body}`);
      assert.equal(refused.json().code, 'filter.not_allowed');
    }
    const allowed = await relay.post(`${BASE}/since/query`, {
      group_by: [],
      temporal: { from: '1991-01-01' },
    });
    assert.equal(allowed.statusCode, 200, allowed.body);
    const again = await relay.get(linkOf(allowed.json(), 'text/csv'));
    assert.equal(again.statusCode, 200, again.body);
  });

  it('links a temporal range and a filter on the same field to the query that was answered', async () => {
    // `omitted` allows gte and lte on born, not between: the range is linked as its bounds, and an explicit
    // looser bound on the same field must not replace the range's.
    const bodies = [
      {
        group_by: [],
        filters: { born: { from: '1985-01-01' } },
        temporal: { from: '1991-01-01', to: '1992-06-01' },
      },
      {
        group_by: [],
        filters: { born: { to: '1999-01-01' } },
        temporal: { from: '1990-06-01', to: '1992-06-01' },
      },
      {
        group_by: [],
        filters: { born: { from: '1991-01-01' } },
        temporal: { from: '1990-01-01', to: '1992-06-01' },
      },
    ];
    for (const body of bodies) {
      const posted = await relay.post(`${BASE}/omitted/query`, body);
      assert.equal(posted.statusCode, 200, posted.body);
      const linked = await relay.get(linkOf(posted.json(), 'application/vnd.sdmx.data+json;version=2.1'));
      assert.equal(linked.statusCode, 200, linked.body);
      const [total] = Object.values(linked.json().data.dataSets[0].observations) as number[][];
      assert.equal(total?.[0], posted.json().observations[0].rows, JSON.stringify(body));
    }
  });
});

// The same rows served from CSV files and from PostgreSQL snapshots, each side with its own entities (`c_obs`,
// `p_obs`, each belonging to a region table of its side) and the same aggregates (`c_mask`/`p_mask`,
// `c_omit`/`p_omit`): values that are easy to read differently (NULLs, unicode and case variants, numbers past
// 2^53 and past 15 digits, doubles whose sum depends on order, timestamps with offsets and microseconds).
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { URL_ENV } from '../helpers/postgres-relay.ts';

export const COLUMNS = [
  'id',
  'region',
  'region_id',
  'day',
  'at',
  'naive',
  'amount',
  'big',
  'f',
  'flag',
] as const;
type Cell = string | boolean | null;
export type Row = Record<(typeof COLUMNS)[number], Cell>;

/** Region values and how many rows hold each: 3 (the minimum cell size), 2 (below it), more, and null. */
const REGION_ROWS: readonly [string | null, number][] = [
  ['Zürich', 3],
  ['zürich', 2],
  ['ZÜRICH', 4],
  ['e\u0301', 3],
  ['\u00e9', 3],
  ['😀', 1],
  [null, 3],
];
const ATS = ['2024-01-01T00:30:00+02:00', '2023-12-31T22:30:00Z', '2024-01-01T00:00:00.123456+05:30'];
const AMOUNTS = ['12345678901234567.1234567891', '0.1', '0.2', null];
// 1e16 + 1 - 1e16 is 0 or 1 depending on the order it is added in.
const FLOATS = ['1e16', '1', '-1e16', '0.1', '0.2', '0.3'];

export const MIN_CELL = 3;

export function parityRows(): Row[] {
  const rows: Row[] = [];
  for (const [region, count] of REGION_ROWS) {
    for (let n = 0; n < count; n++) {
      const i = rows.length;
      rows.push({
        // Mixed case: PostgreSQL's collation and code-point order may disagree on the key order.
        id: `${['a', 'B', 'c', 'D'][i % 4]}${String(i).padStart(2, '0')}`,
        region,
        region_id: i % 7 === 6 ? null : (['r0', 'r1', 'r2', 'r9'][i % 4] ?? null),
        day: i % 5 === 0 ? null : `2024-01-0${(i % 3) + 1}`,
        at: ATS[i % ATS.length] ?? null,
        naive: i % 4 === 0 ? null : `2024-06-0${(i % 2) + 1} 0${i % 3}:00:00`,
        amount: AMOUNTS[i % AMOUNTS.length] ?? null,
        big: String(9007199254740993n + BigInt(i)),
        f: FLOATS[i % FLOATS.length] ?? null,
        flag: i % 6 === 5 ? null : i % 2 === 0,
      });
    }
  }
  return rows;
}

export const REGIONS = [
  { region_id: 'r0', name: 'North', pop: '1.5' },
  { region_id: 'r1', name: 'north', pop: null },
  { region_id: 'r2', name: 'Süd', pop: '9007199254740993' },
];

function csvCell(value: Cell): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The rows as CSV, last row first: the relay must not depend on the order a source delivers rows in. */
export function obsCsv(rows: readonly Row[]): string {
  const lines = [...rows].reverse().map((row) => COLUMNS.map((column) => csvCell(row[column])).join(','));
  return `${COLUMNS.join(',')}\n${lines.join('\n')}\n`;
}

export function regionsCsv(): string {
  const lines = REGIONS.map((region) => [region.region_id, region.name, region.pop ?? ''].join(','));
  return `region_id,name,pop\n${lines.join('\n')}\n`;
}

export async function createParityTables(db: TestDatabase, rows: readonly Row[]): Promise<void> {
  await db.query(`CREATE TABLE obs (id text PRIMARY KEY, region text, region_id text, day date, at timestamptz,
    naive timestamp, amount numeric(40, 10), big bigint, f double precision, flag boolean)`);
  await db.query('CREATE TABLE regions (region_id text PRIMARY KEY, name text, pop numeric)');
  for (const region of REGIONS) {
    await db.query('INSERT INTO regions VALUES ($1, $2, $3)', [region.region_id, region.name, region.pop]);
  }
  const placeholders = COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
  for (const row of rows) {
    await db.query(
      `INSERT INTO obs VALUES (${placeholders})`,
      COLUMNS.map((column) => row[column]),
    );
  }
}

const OBS_FIELDS = `
          fields:
            - { name: id, type: string, nullable: false }
            - { name: region, type: string }
            - { name: region_id, type: string }
            - { name: day, type: date }
            - { name: at, type: timestamp }
            - { name: naive, type: timestamp }
            - { name: amount, type: number }
            - { name: big, type: number }
            - { name: f, type: number }
            - { name: flag, type: boolean }`;
const REGION_FIELDS = `
          fields:
            - { name: region_id, type: string, nullable: false }
            - { name: name, type: string }
            - { name: pop, type: number }`;

function aggregates(side: 'c' | 'p'): string {
  return ['mask', 'omit']
    .map(
      (suppression) => `
      - id: ${side}_${suppression}
        source_entity: ${side}_obs
        default_group_by: [region]
        dimensions:
          - { id: region, field: region }
          - { id: day, field: day }
          - { id: at, field: at }
          - { id: naive, field: naive }
          - { id: flag, field: flag }
          - { id: rname, field: home.name }
        indicators:
          - { id: rows, function: count }
          - { id: n_amount, function: count, column: amount }
          - { id: sum_amount, function: sum, column: amount }
          - { id: avg_amount, function: avg, column: amount }
          - { id: min_amount, function: min, column: amount }
          - { id: max_amount, function: max, column: amount }
          - { id: med_amount, function: median, column: amount }
          - { id: sd_amount, function: stddev, column: amount }
          - { id: sum_big, function: sum, column: big }
          - { id: sum_f, function: sum, column: f }
          - { id: d_region, function: count_distinct, column: region }
          - { id: sum_pop, function: sum, column: home.pop }
        allowed_filters:
          - { field: region, ops: [eq, in, gte, lte, between] }
          - { field: at, ops: [gte, lte, between] }
          - { field: home.name, ops: [eq, in] }
        access: { aggregate_scope: "registry:rows" }
        disclosure_control: { min_cell_size: ${MIN_CELL}, suppression: ${suppression}, report_suppressed_rows: true }`,
    )
    .join('');
}

/** The `registry` dataset: CSV tables read from `csvDir`, PostgreSQL tables `obs` and `regions`. */
export function parityDataset(csvDir: string): string {
  const access = 'access: { metadata_scope: "registry:metadata", read_scope: "registry:rows" }';
  const entities = (['c', 'p'] as const).map(
    (side) => `      - name: ${side}_obs
        table: ${side}_obs
        ${access}
        relationships:
          - { name: home, kind: belongs_to, target: ${side}_regions, foreign_key: region_id }
      - name: ${side}_regions
        table: ${side}_regions
        ${access}`,
  );
  const postgres = (name: string) =>
    `{ type: postgres, connection_env: ${URL_ENV}, table: { name: ${name} } }`;
  return `  - id: registry
    title: Registry
    tables:
      - id: c_obs
        source: { type: file, path: ${JSON.stringify(`${csvDir}/obs.csv`)} }
        primary_key: id
        schema:${OBS_FIELDS}
      - id: c_regions
        source: { type: file, path: ${JSON.stringify(`${csvDir}/regions.csv`)} }
        primary_key: region_id
        schema:${REGION_FIELDS}
      - id: p_obs
        source: ${postgres('obs')}
        primary_key: id
        schema:${OBS_FIELDS}
      - id: p_regions
        source: ${postgres('regions')}
        primary_key: region_id
        schema:${REGION_FIELDS}
    entities:
${entities.join('\n')}
    aggregates:${aggregates('c')}${aggregates('p')}
`;
}

/**
 * A body with the side's ids, the answer digest in the SDMX message id (it hashes the ETag, which covers each
 * table's source config) and the data time (a file's modification time, a snapshot's load time) made neutral.
 */
export function neutral(body: string, side: 'c' | 'p'): string {
  return body
    .replace(new RegExp(`\\b${side}_(mask|omit|obs|regions)\\b`, 'g'), 'X_$1')
    .replace(/(X_(?:mask|omit))-[0-9a-f]{16}/g, '$1-D')
    .replace(/"(computed_at|as_of|prepared|x-asOf)":"[^"]*"/g, '"$1":"T"');
}

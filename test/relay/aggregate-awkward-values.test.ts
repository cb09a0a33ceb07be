// Awkward text and numbers in CSV, XLSX and Parquet sources, through every aggregate format: the CSV answer, read
// by an RFC 4180 reader of another project, gives back the JSON answer's values in the same rows and order, with no
// cell a spreadsheet would run; the SDMX-JSON message validates against the official schema and its keys map back
// to the same observations.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import addFormatsModule from 'ajv-formats';
import { parquetWriteBuffer } from 'hyparquet-writer';
import Papa from 'papaparse';
import writeXlsxFile from 'write-excel-file/node';
import { readStandardJson } from '../../conformance/standards-dir.ts';
import { type CsvRelay, csvRelayHead, startCsvRelay } from './csv-relay-fixture.ts';

const AGGREGATE = '/v1/datasets/t/aggregates/by_label';
const SDMX = 'application/vnd.sdmx.data+json;version=2.1';

const LABELS: readonly (string | null)[] = [
  ...['a,b', 'say "hi"', 'cr\rx', 'lf\nx', 'crlf\r\nx', 'ls\u2028x', ' lead', 'trail ', ' ', '\uFEFFbom'],
  ...['=1+2', '+1', '-1', '@x', '\tx', "'=1+2", "'plain", "''", '-0', '1e21', '_U', 'Ωmega 中文 العربية'],
  ...['x'.repeat(3000), '', null],
];
const AMOUNTS = [0.1, 0.2, -0, 1e21, -5.5, 1e-7];
const row = (i: number) => ({
  id: i + 1,
  label: LABELS[i] ?? null,
  amount: AMOUNTS[i % AMOUNTS.length] as number,
  day: new Date(Date.UTC(2024, i % 3, 1)),
  ok: i % 3 === 2 ? null : i % 3 === 0,
});
const ROWS = LABELS.map((_, i) => row(i));

function config(path: string): string {
  return `${csvRelayHead(['t:aggregate', 't:rows'])}datasets:
  - id: t
    title: T
    sensitivity: internal
    tables:
      - id: things_t
        source: { type: file, path: ${path} }
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: label, type: string }
            - { name: amount, type: number }
            - { name: day, type: date }
            - { name: ok, type: boolean }
    entities:
      - { name: things, table: things_t }
    aggregates:
      - id: by_label
        source_entity: things
        default_group_by: [label]
        dimensions:
          - { id: label, field: label }
          - { id: amount, field: amount }
          - { id: day, field: day }
          - { id: ok, field: ok }
        indicators:
          - { id: rows, function: count }
          - { id: total, function: sum, column: amount }
          - { id: mean, function: avg, column: amount }
        disclosure_control: { min_cell_size: 1, suppression: omit }
`;
}

function csvSource(): string {
  const quoted = (text: string) => `"${text.replace(/"/g, '""')}"`;
  const lines = ROWS.map((r) =>
    [
      r.id,
      r.label === null ? '' : quoted(r.label),
      r.amount,
      r.day.toISOString().slice(0, 10),
      r.ok ?? '',
    ].join(','),
  );
  return `id,label,amount,day,ok\r\n${lines.join('\r\n')}\r\n`;
}

async function xlsxSource(): Promise<Uint8Array> {
  const header = ['id', 'label', 'amount', 'day', 'ok'].map((value) => ({ value }));
  const data = ROWS.map((r) => [
    { type: Number, value: r.id },
    r.label === null ? null : { type: String, value: r.label },
    { type: Number, value: r.amount },
    { type: Date, value: r.day, format: 'yyyy-mm-dd' },
    r.ok === null ? null : { type: Boolean, value: r.ok },
  ]);
  return new Uint8Array(await writeXlsxFile([header, ...data] as never).toBuffer());
}

function parquetSource(): Uint8Array {
  const bytes = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: Int32Array.from(ROWS, (r) => r.id) },
      { name: 'label', data: ROWS.map((r) => r.label) },
      { name: 'amount', data: Float64Array.from(ROWS, (r) => r.amount) },
      { name: 'day', data: ROWS.map((r) => r.day) },
      { name: 'ok', data: ROWS.map((r) => r.ok) },
    ],
    schema: [
      { name: 'root', num_children: 5 },
      { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
      { name: 'label', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      { name: 'amount', type: 'DOUBLE', repetition_type: 'REQUIRED' },
      { name: 'day', type: 'INT32', converted_type: 'DATE', repetition_type: 'REQUIRED' },
      { name: 'ok', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
    ],
  });
  return new Uint8Array(bytes);
}

/** The CSV body as Papa Parse reads it, without the empty line after the closing CRLF. */
function readCsv(body: string): string[][] {
  const parsed = Papa.parse<string[]>(body, { delimiter: ',', newline: '\r\n' });
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.data.at(-1), ['']);
  return parsed.data.slice(0, -1);
}

/** As docs/relay-api.md says: a cell starting with `'` had one put before it. */
const restore = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell);

type Observation = Record<string, unknown> & { attributes?: Record<string, string> };

/** What a JSON observation says in the cell of `column` (null as the empty cell). */
function jsonCell(observation: Observation, column: string): string {
  const value = column.endsWith('$status') ? observation.attributes?.[column] : observation[column];
  return value === null || value === undefined ? '' : String(value);
}

interface SdmxDimension {
  id: string;
  values?: ({ value: unknown } | { id: string })[];
}

/** An SDMX message's observations as `[dimension values..., measures...]`: `_U` (unknown) as null, a code as `#id`. */
function sdmxObservations(message: {
  data: {
    structures: { dimensions: { observation: SdmxDimension[] }; measures: { observation: unknown[] } }[];
    dataSets: { observations: Record<string, unknown[]> }[];
  };
}): unknown[][] {
  const structure = message.data.structures[0];
  assert.ok(structure);
  const dimensions = structure.dimensions.observation;
  return Object.entries(message.data.dataSets[0]?.observations ?? {}).map(([key, values]) => [
    ...key.split(':').map((index, d) => {
      const entry = dimensions[d]?.values?.[Number(index)];
      assert.ok(entry, `key ${key}`);
      if ('value' in entry) return entry.value;
      return entry.id === '_U' ? null : `#${entry.id}`;
    }),
    ...values.slice(0, structure.measures.observation.length),
  ]);
}

const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

const SOURCES = {
  csv: async () => ({ 'things.csv': csvSource() }),
  xlsx: async () => ({ 'things.xlsx': await xlsxSource() }),
  parquet: async () => ({ 'things.parquet': parquetSource() }),
};

for (const [kind, files] of Object.entries(SOURCES)) {
  describe(`aggregate answers over awkward values (${kind} source)`, () => {
    let relay: CsvRelay;
    const ajv = (addFormatsModule as unknown as (ajv: Ajv2019) => Ajv2019)(
      new Ajv2019({ strict: false, allErrors: true }),
    );
    const validate = ajv.compile(readStandardJson('sdmx-json/2.1.0/sdmx-json-data-schema.json') as object);

    before(async () => {
      const written = await files();
      relay = await startCsvRelay(config(Object.keys(written)[0] as string), written);
    });
    after(() => relay?.close());

    for (const groupBy of ['label', 'label,ok', 'amount', 'day,ok', '']) {
      it(`group_by=${groupBy}: CSV gives back the JSON rows in order, SDMX the same observations`, async () => {
        const query = `${AGGREGATE}?group_by=${groupBy}&measures=rows,total,mean`;
        const json = await relay.get(query);
        assert.equal(json.statusCode, 200, json.body);
        const observations = json.json().observations as Observation[];
        assert.ok(observations.length > 0);

        const csv = await relay.get(`${query}&f=csv`);
        assert.equal(csv.statusCode, 200, csv.body);
        assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8; header=present');
        const [columns, ...cells] = readCsv(csv.body);
        assert.ok(columns);
        const dimensions = groupBy === '' ? [] : groupBy.split(',');
        assert.deepEqual(columns.slice(0, dimensions.length + 3), [...dimensions, 'rows', 'total', 'mean']);
        assert.deepEqual(
          cells.map((line) => line.map(restore)),
          observations.map((o) => columns.map((column) => jsonCell(o, column))),
        );
        // No text cell starts as a formula would; the label ones all came from text.
        const label = columns.indexOf('label');
        for (const line of cells) if (label >= 0) assert.doesNotMatch(line[label] as string, /^[=+\-@\t\r]/);

        const sdmx = await relay.get(`${query}&f=sdmx-json`);
        assert.equal(sdmx.statusCode, 200, sdmx.body);
        assert.equal(sdmx.headers['content-type'], SDMX);
        const message = sdmx.json();
        assert.equal(validate(message), true, JSON.stringify(validate.errors));
        const measures = ['rows', 'total', 'mean'];
        // Without group_by, the one grand total is keyed by the TOTAL dimension's code `_T`.
        const keys = (o: Observation) => (dimensions.length ? dimensions.map((d) => o[d]) : ['#_T']);
        assert.deepEqual(
          sorted(sdmxObservations(message)),
          sorted(observations.map((o) => [...keys(o), ...measures.map((m) => o[m])])),
        );
      });
    }
  });
}

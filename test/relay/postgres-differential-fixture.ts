// The table the snapshot-versus-live differential test reads: every mapped column type with its edge values
// (unicode beyond U+FFFF, empty strings, trailing spaces, case, integers near 2^53, negative zero, subnormals,
// dates at the calendar's ends, timestamps with offsets and fractional seconds, booleans, uuids, nulls), and the
// filter values a caller might send for each type, well-formed or not.
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';

type Cell = string | null;

/** Column name, PostgreSQL type, declared field type and the values rows cycle through (PostgreSQL input text). */
export const COLUMNS: readonly (readonly [string, string, string, readonly Cell[]])[] = [
  [
    's',
    'text COLLATE "C"',
    'string',
    [
      ...['', ' ', 'a', 'a ', ' a', 'A', 'b', '\u{1f600}', '\uffff', '\ue000x', 'a,b', '\u03a9', null, 'abc'],
      ...[
        'ab',
        'z\u{10ffff}',
        "O'Brien",
        '%_\\',
        'e\u0301',
        '\u00e9',
        '\u00df',
        'SS',
        'a\tb',
        '1',
        '10',
        '9',
      ],
    ],
  ],
  ['v', 'varchar(12) COLLATE "C"', 'string', ['', 'x', 'x ', 'X', null, '\u{1f600}x', 'xy']],
  [
    'big',
    'bigint',
    'integer',
    ['0', '1', '-1', '9007199254740991', '-9007199254740991', '9007199254740990', '2147483648', null, '42'],
  ],
  ['small', 'integer', 'integer', ['0', '-1', '2147483647', '-2147483648', null, '5', '1000', '3']],
  ['tiny', 'smallint', 'integer', ['0', '-1', '32767', '-32768', null, '5', '1000', '3']],
  [
    'num',
    'numeric',
    'number',
    [
      ...['0', '0.1', '0.10000000000000000001', '1e20', '-2.5', '123.456', null, '1e-7', '0.000001', '1000'],
      ...['-0.0', '9007199254740993', '5'],
    ],
  ],
  [
    'fixed',
    'numeric(30,10)',
    'number',
    [
      ...['0', '0.1', '-0.0000000001', '12345678901234567890.0123456789', '9007199254740993.0000000001'],
      ...['-9007199254740993', '1000', null, '5.5', '2.5000000001', '0.0000000005'],
    ],
  ],
  [
    'dbl',
    'double precision',
    'number',
    ['-0', '0', '0.1', '1e-320', '1.7976931348623157e308', '-1.5', null, '5e-324', '1000', '2.5', '-1e-7'],
  ],
  [
    'bn',
    'bigint',
    'number',
    [
      '9007199254740993',
      '9007199254740992',
      '-9007199254740993',
      '4611686018427387904',
      '0',
      null,
      '1000',
      '-1',
    ],
  ],
  [
    'd',
    'date',
    'date',
    ['2024-02-29', '0001-01-01', '9999-12-31', '1970-01-01', null, '2000-01-01', '1969-12-31', '2024-03-01'],
  ],
  [
    'ts',
    'timestamptz',
    'timestamp',
    [
      ...['2024-01-01 00:00:00+00', '2024-01-01 05:30:00.123+05:30', '1969-12-31 23:59:59.999+00', null],
      ...['0001-01-01 00:00:00+00', '9999-12-31 23:59:59.999+00', '2024-06-30 12:00:00.5-08:00'],
      // Microseconds, which a snapshot (milliseconds) truncates.
      ...['2024-01-01 00:00:00.123456+00', '2024-01-01 00:00:00.1239+00', '1969-12-31 23:59:59.9995+00'],
    ],
  ],
  [
    'tl',
    'timestamp',
    'timestamp',
    [
      ...[
        '2024-01-01 00:00:00',
        '1970-01-01 00:00:00.001',
        null,
        '2000-02-29 23:59:59.999',
        '0001-01-01 00:00:00',
      ],
      ...['1970-01-01 00:00:00.000999', '2000-02-29 23:59:59.999999'],
    ],
  ],
  ['b', 'boolean', 'boolean', ['true', 'false', null]],
  [
    'u',
    'uuid',
    'string',
    [
      ...['6f1c1c2e-1d5c-4d55-9a4e-6f6b3c1f0a01', 'c0ffee00-0000-4000-8000-000000000002', null],
      ...['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
    ],
  ],
];

/** Key prefixes: case, spaces, characters beyond U+FFFF and in U+E000..U+FFFF, so pages cross every order quirk. */
const KEY_PREFIXES = ['a', 'A', '\u{1f600}', '\uffff', '\ue000', 'a ', '\u00e9', 'z', 'a\u{1f600}'];
export const ROW_COUNT = 60;

export const keyOf = (row: number) => `${KEY_PREFIXES[row % KEY_PREFIXES.length]}${row}`;

/** Creates `table` (text key in C collation) holding ROW_COUNT rows that mix the column values. */
export async function createDifferentialTable(db: TestDatabase, table: string): Promise<void> {
  const columns = COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ');
  await db.query(`CREATE TABLE ${table} (id text COLLATE "C" PRIMARY KEY, ${columns})`);
  const placeholders = COLUMNS.map((_, index) => `$${index + 2}`).join(', ');
  for (let row = 0; row < ROW_COUNT; row++) {
    // Different strides, so that rows combine the values of different columns differently.
    const cells = COLUMNS.map(([, , , values], index) => values[(row * (index + 1)) % values.length] ?? null);
    await db.query(`INSERT INTO ${table} VALUES ($1, ${placeholders})`, [keyOf(row), ...cells]);
  }
}

const ALL_OPS = '[eq, in, gte, lte, between]';

/** `table` served twice, as entity `snap` (a snapshot) and `live`, each allowing every operator on every field. */
export function differentialDataset(table: string): string {
  const fields = [
    '{ name: id, type: string, nullable: false }',
    ...COLUMNS.map(([name, , type]) => `{ name: ${name}, type: ${type} }`),
  ].join(', ');
  const filters = ['id', ...COLUMNS.map(([name]) => name)]
    .map((name) => `{ field: ${name}, ops: ${ALL_OPS} }`)
    .join(', ');
  const tableYaml = (id: string, live: boolean) => `
      - id: ${id}
        ${postgresSource({ table }, live ? 'live_max_rows: 1000' : '')}${live ? '\n        materialization: live' : ''}
        primary_key: id
        schema: { fields: [${fields}] }`;
  const entity = (name: string) => `
      - name: ${name}
        table: ${name}_table
        ${ACCESS}
        api: { default_limit: 10, max_limit: 100, allowed_filters: [${filters}] }`;
  return `  - id: registry
    title: Registry
    tables:${tableYaml('snap_table', false)}${tableYaml('live_table', true)}
    entities:${entity('snap')}${entity('live')}`;
}

/** Values a caller might send, per declared type (raw text, before percent-encoding). */
export const VALUES: Readonly<Record<string, readonly string[]>> = {
  string: [
    ...[
      '',
      ' ',
      'a',
      'a ',
      ' a',
      'A',
      'A ',
      'b',
      '\u{1f600}',
      '\u{1f600}\u{1f600}',
      '\uffff',
      '\ue000x',
      'a,b',
    ],
    ...['\u03a9', 'abc', 'ab', 'z\u{10ffff}', "O'Brien", '%_\\', 'e\u0301', '\u00e9', '\u00df', 'ss', 'SS'],
    ...[
      'a\tb',
      '1',
      '10',
      '9',
      'x',
      'x ',
      'X',
      'xy',
      '\0',
      'a\0',
      'zzzz',
      'null',
      'NaN',
      '6f1c1c2e',
      '7',
      'g',
    ],
    ...['6f1c1c2e-1d5c-4d55-9a4e-6f6b3c1f0a01', '6F1C1C2E-1D5C-4D55-9A4E-6F6B3C1F0A01', '{6f1c1c2e}'],
    ...['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'a1', '\u{1f600}2'],
  ],
  integer: [
    ...[
      '0',
      '-0',
      '1',
      '-1',
      '9007199254740991',
      '-9007199254740991',
      '9007199254740992',
      '9007199254740990',
    ],
    ...[
      '2147483647',
      '2147483648',
      '-2147483648',
      '-2147483649',
      '5',
      '5.0',
      '5.5',
      '1e3',
      '0x10',
      ' 5',
      '+5',
    ],
    ...['007', 'NaN', 'Infinity', '', '3', '1000', '42', '99999999999999999999', '1_000', '\u0665', '--1'],
    ...['32767', '32768', '-32768', '-32769', '32767.5', '-32768.5'],
  ],
  number: [
    ...['0', '-0', '0.1', '0.10000000000000000001', '1e20', '1E20', '-2.5', '123.456', '1e-7', '0.000001'],
    ...['1000', '1e3', '1e-320', '5e-324', '1.7976931348623157e308', '1e400', '-1e400', '1e-400', '5', '2.5'],
    ...['9007199254740993', '9007199254740992', '4611686018427387904', '-9007199254740993', '.5', '5.', '-1'],
    ...['0x10', 'NaN', 'Infinity', '-Infinity', ' 5', '+5', '-1.5', '-1e-7', '', '1,5', '0b1', '1e', '.'],
    ...['1e-10', '-1e-10', '12345678901234567890', '1.2345678901234568e19', '5e-10', '2.5000000001', '5.5'],
  ],
  date: [
    ...['2024-02-29', '0001-01-01', '9999-12-31', '1970-01-01', '2000-01-01', '1969-12-31', '2024-03-01'],
    ...['2023-02-29', '2024-13-01', '2024-1-1', '0000-01-01', ' 2024-02-29', '2024-02-29T00:00:00Z'],
    ...['20240229', '2024-02-30', '2024-02-28', '10000-01-01', '-2024-01-01', '2024-02-29 ', ''],
  ],
  timestamp: [
    ...['2024-01-01T00:00:00Z', '2024-01-01', '2024-01-01T05:30:00.123+05:30', '2024-01-01T00:00:00.123Z'],
    ...['2024-01-01T00:00:00.123+00', '2024-01-01T00:00:00.1239Z', '2024-01-01 00:00:00.123456'],
    ...[
      '1969-12-31T23:59:59.999Z',
      '0001-01-01T00:00:00Z',
      '0000-12-31T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
    ],
    ...['2024-06-30T20:00:00.5Z', '2024-02-30T00:00:00Z', '2024-01-01T25:00:00Z', '2024-01-01T23:59:60Z'],
    ...[
      '2024-01-01T00:00Z',
      '2024-01-01T00:00:00+0530',
      '2024-01-01T00:00:00+14:00',
      '2024-01-01T00:00:00+25:00',
    ],
    ...[
      '2024-01-01T00:00:00-00:00',
      'now',
      '1704067200000',
      '1970-01-01T00:00:00.001',
      '2000-02-29T23:59:59.999',
    ],
    ...['2024-01-01T00:00:00+00:60', '1969-12-31T23:59:59.9995Z', ''],
  ],
  boolean: [
    'true',
    'false',
    'TRUE',
    'False',
    'yes',
    'no',
    '1',
    '0',
    't',
    'f',
    'y',
    'n',
    'maybe',
    ' true',
    '2',
    '',
  ],
};

/** The declared type of each filterable field. */
export const FIELD_TYPES: ReadonlyMap<string, string> = new Map([
  ['id', 'string'],
  ...COLUMNS.map(([name, , type]) => [name, type] as [string, string]),
]);

/**
 * The keys of `records` (as the relay shows them) that a filter selects, computed independently of the relay:
 * strings by UTF-8 bytes, timestamps as instants, nulls never. Undefined when a value does not parse (a 400).
 */
export function selectedKeys(
  records: readonly Record<string, unknown>[],
  field: string,
  op: string,
  raw: string,
  parse: (text: string) => unknown,
): string[] | undefined {
  const type = FIELD_TYPES.get(field);
  const texts = op === 'in' || op === 'between' ? raw.split(',').map((text) => text.trim()) : [raw];
  const bounds = texts.filter((text) => text !== '').map(parse);
  if (bounds.length === 0 || bounds.some((bound) => bound === undefined)) return undefined;
  if (op === 'between' && bounds.length !== 2) return undefined;
  const compare = (shown: unknown, bound: unknown): number => {
    if (type === 'string') return Buffer.compare(Buffer.from(shown as string), Buffer.from(bound as string));
    const value = type === 'timestamp' ? Date.parse(shown as string) : shown;
    return (value as number) < (bound as number) ? -1 : (value as number) > (bound as number) ? 1 : 0;
  };
  const keep = (shown: unknown): boolean => {
    if (shown === null) return false;
    switch (op) {
      case 'eq':
        return compare(shown, bounds[0]) === 0;
      case 'in':
        return bounds.some((bound) => compare(shown, bound) === 0);
      case 'gte':
        return compare(shown, bounds[0]) >= 0;
      case 'lte':
        return compare(shown, bounds[0]) <= 0;
      default:
        return compare(shown, bounds[0]) >= 0 && compare(shown, bounds[1]) <= 0;
    }
  };
  return records.filter((record) => keep(record[field])).map((record) => record.id as string);
}

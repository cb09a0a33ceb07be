import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CatalogField } from '../catalog/catalog.ts';
import type { FieldType } from '../config/schema.ts';
import { LiveRowInvalid } from '../sources/postgres/live-read-problems.ts';
import { coerceValue, INVALID } from '../store/coerce-cell.ts';
import { cellRenderer, checkDistinctKeys, liveLayout, liveRowJson } from './render-live-rows.ts';

const field = (name: string, type: FieldType, nullable = true) =>
  ({ name, column: name, type, nullable }) as unknown as CatalogField;

/** What the snapshot path serves for a cell: the coerced value as JSON, or a refusal. */
function snapshotJson(type: FieldType, nullable: boolean, raw: string | null): string {
  const value = coerceValue(raw, type, false);
  if (value === INVALID || (value === null && !nullable)) return 'refused';
  if (value !== null && type === 'timestamp') return JSON.stringify(new Date(value as number).toISOString());
  return JSON.stringify(value);
}

function rendered(type: FieldType, nullable: boolean, raw: string | null): string {
  try {
    return cellRenderer(field('f', type, nullable))(raw);
  } catch {
    return 'refused';
  }
}

const digit = fc.constantFrom(...'0123456789');
// Text shaped like what PostgreSQL writes for numbers (and near misses): signs, points, exponents, zeros, blanks.
const numberText = fc.oneof(
  fc.double({ noNaN: true }).map(String),
  fc
    .double({ noNaN: true, min: -1e6, max: 1e6 })
    .map((value) => value.toPrecision(1 + Math.floor(Math.abs(value) % 17))),
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 22n), max: 10n ** 22n }).map(String),
  fc
    .array(fc.oneof(digit, digit, digit, fc.constantFrom('-', '.', 'e', '+', ' ', '0')), { maxLength: 24 })
    .map((chars) => chars.join('')),
  fc.constantFrom(
    '0',
    '-0',
    '0.0',
    '-0.0',
    '00',
    '01',
    '1.',
    '.5',
    '0.000001',
    '0.0000001',
    '1e-07',
    '1e+21',
    '123456789012345',
    '1234567890123456',
    '9007199254740993',
    '0.1',
    '-29.993',
  ),
);
const dateText = fc.oneof(
  fc
    .date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
    )
    .map(
      ([y, m, d]) =>
        `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
    ),
  fc.constantFrom('2024-02-29', '2023-02-29', ' 2024-01-01', '2024-1-01', 'infinity'),
);

describe('live cell rendering', () => {
  for (const [type, text] of [
    ['integer', numberText],
    ['number', numberText],
    [
      'string',
      fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', 'a"b\\c\nd', '\u2028')),
    ],
    ['date', dateText],
    ['boolean', fc.constantFrom('t', 'f', 'true', 'false', 'yes', 'x', '', ' t')],
    ['timestamp', fc.constantFrom('2024-05-01 10:00:00+02', '2024-05-01 10:00:00.123456+00', 'nonsense')],
  ] as const) {
    it(`writes every ${type} cell exactly as the snapshot path does, refusing the same cells`, () => {
      fc.assert(
        fc.property(fc.option(text as fc.Arbitrary<string>, { freq: 10 }), fc.boolean(), (raw, nullable) => {
          assert.equal(
            rendered(type, nullable, raw),
            snapshotJson(type, nullable, raw),
            `${type} ${JSON.stringify(raw)}`,
          );
        }),
        { numRuns: 3000 },
      );
    });
  }

  it('passes the database text through where it is already the JSON form', () => {
    assert.equal(rendered('number', false, '-29.993'), '-29.993');
    assert.equal(rendered('number', false, '0.000001'), '0.000001');
    assert.equal(rendered('number', false, '0.0000001'), '1e-7');
    assert.equal(rendered('number', false, '1.50'), '1.5');
    assert.equal(rendered('integer', false, '-0'), '0');
    assert.equal(rendered('integer', false, '+7'), '7');
    assert.equal(rendered('date', false, '2024-02-30'), 'refused');
    assert.equal(rendered('string', false, ''), 'refused');
    assert.equal(rendered('string', true, ''), 'null');
  });

  it('renders a row in field order from the layout, whatever the SELECT order', () => {
    const fields = [field('name', 'string'), field('id', 'integer', false), field('born', 'date')];
    const layout = liveLayout(fields, fields[1] as CatalogField);
    assert.deepEqual(layout.columns, ['name', 'id', 'born']);
    assert.equal(liveRowJson(layout, ['Ann "A"', '12', null]), '{"name":"Ann \\"A\\"","id":12,"born":null}');
    const projected = [fields[2] as CatalogField];
    const keyed = liveLayout(projected, fields[1] as CatalogField);
    assert.deepEqual(keyed.columns, ['born', 'id']);
    assert.equal(liveRowJson(keyed, ['2001-09-09', '3']), '{"born":"2001-09-09"}');
  });

  it('checks the key of every row read, also when the projection leaves it out', () => {
    const key = field('id', 'integer', false);
    const layout = liveLayout([field('born', 'date')], key);
    for (const cell of [null, '', 'x', '9007199254740993']) {
      assert.throws(() => liveRowJson(layout, ['2001-09-09', cell]), LiveRowInvalid, String(cell));
    }
  });

  it('reads and checks the filtered fields the projection leaves out, without serving them', () => {
    const key = field('id', 'integer', false);
    const score = field('score', 'number');
    const label = field('label', 'string');
    const layout = liveLayout([label], key, [score, score, label, key]);
    // Each once, after the served columns and the key; a shown or key field is not read again.
    assert.deepEqual(layout.columns, ['label', 'id', 'score']);
    assert.equal(liveRowJson(layout, ['a', '1', '2.5']), '{"label":"a"}');
    assert.equal(liveRowJson(layout, ['a', '1', null]), '{"label":"a"}');
    for (const cell of ['NaN', 'Infinity', '-Infinity', '1e+400']) {
      assert.throws(
        () => liveRowJson(layout, ['a', '1', cell]),
        { name: 'LiveRowInvalid', field: 'score' },
        cell,
      );
    }
    assert.deepEqual(liveLayout([label, score], key, [score]).columns, ['label', 'score', 'id']);
  });
});

describe('checkDistinctKeys', () => {
  const refuses = (type: FieldType, keys: (string | null)[]) => {
    const layout = liveLayout([field('label', 'string')], field('id', type, false));
    try {
      checkDistinctKeys(
        layout,
        keys.map((key) => ['x', key]),
      );
      return false;
    } catch (error) {
      assert.ok(error instanceof LiveRowInvalid);
      assert.equal(error.field, 'id');
      return true;
    }
  };

  it('refuses a key the next row repeats, as the database compares it', () => {
    assert.equal(refuses('string', ['a', 'b', 'b']), true);
    assert.equal(refuses('number', ['1.0', '1.00']), true);
    assert.equal(refuses('number', ['10', '10.000']), true);
    assert.equal(refuses('number', ['-0', '0']), true);
    assert.equal(refuses('number', ['0.0', '0']), true);
  });

  it('refuses keys the database holds apart that a record shows alike, as a snapshot load does', () => {
    assert.equal(refuses('number', ['0.1', '0.10000000000000000001']), true);
    assert.equal(refuses('number', ['9007199254740992', '9007199254740993']), true);
    assert.equal(refuses('number', ['1e+20', '100000000000000000001']), true);
    assert.equal(
      refuses('timestamp', ['2024-01-01 00:00:00.123456+00', '2024-01-01 00:00:00.123789+00']),
      true,
    );
    assert.equal(refuses('timestamp', ['2024-01-01 00:00:00', '2024-01-01 00:00:00.0009']), true);
  });

  it('passes keys that differ, however alike their text', () => {
    assert.equal(refuses('string', ['a', 'a ', 'A', 'b']), false);
    assert.equal(refuses('string', ['1.0', '1.00']), false);
    assert.equal(refuses('number', ['1', '10', '100', '1e+100', '1.5e+100']), false);
    assert.equal(refuses('number', ['0.1', '0.1000000000000001']), false);
    assert.equal(refuses('number', ['9007199254740992', '9007199254740994']), false);
    assert.equal(refuses('integer', ['0', '100']), false);
    assert.equal(
      refuses('timestamp', ['2024-01-01 00:00:00.123999+00', '2024-01-01 00:00:00.124+00']),
      false,
    );
    // Keys no record could show are left to the rendering, which refuses them when a page shows them.
    assert.equal(refuses('number', ['1', 'Infinity', 'NaN']), false);
    // Rows without a key are refused by the rendering, not here.
    assert.equal(refuses('string', [null, null]), false);
  });
});

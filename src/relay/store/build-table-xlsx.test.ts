// XLSX cells as a table serves them: date serials (formatted or plain, 1900 or 1904 epoch), t="d" dates in any
// host time zone, strings as stored, and error cells refused. Workbooks are hand-written XML zipped with fflate.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Field,
  header,
  load,
  loadError,
  num,
  row,
  served,
  table,
  text,
  useWorkbookDir,
  writeWorkbook,
} from './xlsx-workbook-test-support.ts';

useWorkbookDir();

describe('buildTable from an XLSX file', () => {
  it('serves date-time formatted serials at the instant a plain serial gives, every second of a day', async () => {
    // 2024-01-01 00:00:02 is stored as 45292.000023148146, a hair below the second (26,368 of the day's seconds
    // are): read-excel-file rounds those down to .999.
    const day = 45292;
    const rows: string[] = [header('id', 'formatted', 'custom', 'plain', 'on')];
    for (let second = 0; second < 86_400; second++) {
      const serial = String(day + second / 86_400);
      const r = second + 2;
      rows.push(
        row(
          r,
          `${num(`A${r}`, second)}${num(`B${r}`, serial, 2)}${num(`C${r}`, serial, 3)}${num(`D${r}`, serial)}${num(`E${r}`, serial, 1)}`,
        ),
      );
    }
    await writeWorkbook('seconds.xlsx', { rows: rows.join('') });
    const snapshot = await load(
      table('seconds.xlsx', [
        ['id', 'integer'],
        ['formatted', 'timestamp'],
        ['custom', 'timestamp'],
        ['plain', 'timestamp'],
        ['on', 'date'],
      ]),
    );
    assert.equal(snapshot.rowCount, 86_400);
    const wrong: string[] = [];
    served(snapshot).forEach((cells, second) => {
      const expected = new Date(Date.UTC(2024, 0, 1, 0, 0, second)).toISOString();
      for (const name of ['formatted', 'custom', 'plain']) {
        if (cells[name] !== expected) wrong.push(`${name} ${second}: ${String(cells[name])}`);
      }
      if (cells.on !== '2024-01-01') wrong.push(`on ${second}: ${String(cells.on)}`);
    });
    assert.deepEqual(wrong.slice(0, 5), []);
  });

  it('spells a date-formatted cell in a string field at the whole second too', async () => {
    await writeWorkbook('text-of-date.xlsx', {
      rows: header('id', 'noted') + row(2, `${text('A2', 'hh-1')}${num('B2', '45292.000023148146', 2)}`),
    });
    const snapshot = await load(
      table('text-of-date.xlsx', [
        ['id', 'string'],
        ['noted', 'string'],
      ]),
    );
    assert.deepEqual(served(snapshot), [{ id: 'hh-1', noted: '2024-01-01T00:00:02.000Z' }]);
  });

  it('counts serials from 1904-01-01 in a 1904 workbook, formatted or plain, and leaves other numbers alone', async () => {
    // 43830 days after 1904-01-01 is 2024-01-01 (1462 days less than the 1900 serial 45292).
    const rows =
      header('id', 'joined', 'seen', 'paid_on', 'paid_at', 'size', 'score', 'label', 'flag') +
      row(
        2,
        `${num('A2', 1)}${num('B2', 43830)}${num('C2', 43830.5)}${num('D2', 43830, 1)}${num('E2', '43830.000023148146', 2)}${num('F2', 4)}${num('G2', 2.5)}${num('H2', 12)}${num('I2', 1)}`,
      );
    const fields: Field[] = [
      ['id', 'integer'],
      ['joined', 'date'],
      ['seen', 'timestamp'],
      ['paid_on', 'date'],
      ['paid_at', 'timestamp'],
      ['size', 'integer'],
      ['score', 'number'],
      ['label', 'string'],
      ['flag', 'boolean'],
    ];
    // The flag is an xsd:boolean: read-excel-file takes only "1".
    for (const date1904 of ['1', 'true'] as const) {
      await writeWorkbook('mac.xlsx', { rows, date1904 });
      assert.deepEqual(
        served(await load(table('mac.xlsx', fields))),
        [
          {
            id: 1,
            joined: '2024-01-01',
            seen: '2024-01-01T12:00:00.000Z',
            paid_on: '2024-01-01',
            paid_at: '2024-01-01T00:00:02.000Z',
            size: 4,
            score: 2.5,
            label: '12',
            flag: true,
          },
        ],
        date1904,
      );
    }
    // Dates without a time only (read-excel-file's own Dates would be kept for these in a 1900 workbook).
    await writeWorkbook('mac-days.xlsx', {
      rows: header('id', 'paid_on') + row(2, `${num('A2', 1)}${num('B2', 43830, 1)}`),
      date1904: 'true',
    });
    const days = await load(
      table('mac-days.xlsx', [
        ['id', 'integer'],
        ['paid_on', 'date'],
      ]),
    );
    assert.deepEqual(served(days), [{ id: 1, paid_on: '2024-01-01' }]);
    // The same cells in a 1900 workbook.
    await writeWorkbook('windows.xlsx', { rows });
    assert.deepEqual(served(await load(table('windows.xlsx', fields))), [
      {
        id: 1,
        joined: '2019-12-31',
        seen: '2019-12-31T12:00:00.000Z',
        paid_on: '2019-12-31',
        paid_at: '2019-12-31T00:00:02.000Z',
        size: 4,
        score: 2.5,
        label: '12',
        flag: true,
      },
    ]);
  });

  it('reads t="d" dates without an offset as UTC whatever the host time zone', async () => {
    const dated = (ref: string, value: string) => `<c r="${ref}" t="d"><v>${value}</v></c>`;
    await writeWorkbook('iso-dates.xlsx', {
      rows:
        header('id', 'on', 'at', 'noted') +
        row(
          2,
          `${num('A2', 1)}${dated('B2', '2024-03-01T00:00:00')}${dated('C2', '2024-03-01T10:20:30')}${dated('D2', '2024-03-01T00:00:00')}`,
        ) +
        row(
          3,
          `${num('A3', 2)}${dated('B3', '2024-03-01')}${dated('C3', '2024-03-01T10:20:30.5+02:00')}${dated('D3', '2024-03-01T10:20:30Z')}`,
        ),
    });
    const config = table('iso-dates.xlsx', [
      ['id', 'integer'],
      ['on', 'date'],
      ['at', 'timestamp'],
      ['noted', 'string'],
    ]);
    const saved = process.env.TZ;
    // East of UTC, local midnight of 2024-03-01 is still 2024-02-29 in UTC.
    process.env.TZ = 'Asia/Tokyo';
    try {
      assert.equal(new Date(2024, 2, 1).getTimezoneOffset(), -540, 'the host time zone is Asia/Tokyo');
      assert.deepEqual(served(await load(config)), [
        { id: 1, on: '2024-03-01', at: '2024-03-01T10:20:30.000Z', noted: '2024-03-01T00:00:00.000Z' },
        { id: 2, on: '2024-03-01', at: '2024-03-01T08:20:30.500Z', noted: '2024-03-01T10:20:30.000Z' },
      ]);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('keeps strings exactly as stored, as CSV does; an empty string is an empty cell', async () => {
    await writeWorkbook('spaces.xlsx', {
      sharedStrings: ['A ', '  padded  ', ' '],
      rows:
        header('id', 'name', 'note') +
        row(2, `${text('A2', 'A')}${text('B2', '  padded  ')}${text('C2', ' ')}`) +
        row(3, `<c r="A3" t="s"><v>0</v></c><c r="B3" t="s"><v>1</v></c><c r="C3" t="s"><v>2</v></c>`) +
        row(4, `${text('A4', 'B')}${text('B4', '')}${text('C4', 'x')}`),
    });
    const fields: Field[] = [
      ['id', 'string'],
      ['name', 'string'],
      ['note', 'string', false],
    ];
    assert.deepEqual(served(await load(table('spaces.xlsx', fields))), [
      { id: 'A', name: '  padded  ', note: ' ' },
      { id: 'A ', name: '  padded  ', note: ' ' },
      { id: 'B', name: null, note: 'x' },
    ]);
    // An empty string in a field that is not nullable is an empty value there, as '' is in CSV.
    const error = await loadError(
      table('spaces.xlsx', [
        ['id', 'string'],
        ['name', 'string', false],
      ]),
    );
    assert.equal(error.code, 'ingest.null_value');
    assert.equal(error.row, 3);
    assert.equal(error.column, 'name');
  });

  it('refuses a serial beyond the range of dates in a timestamp field rather than store it', async () => {
    // 1e10 days is some 27 million years: no instant a Date can hold, so serving it would fail every read.
    for (const serial of ['10000000000', '-10000000000', '1e400']) {
      await writeWorkbook('far.xlsx', {
        rows:
          header('id', 'at') +
          row(2, `${num('A2', 1)}${num('B2', 45292)}`) +
          row(3, `${num('A3', 2)}${num('B3', serial)}`),
      });
      const error = await loadError(
        table('far.xlsx', [
          ['id', 'integer'],
          ['at', 'timestamp'],
        ]),
      );
      assert.equal(error.code, 'ingest.type_mismatch', serial);
      assert.equal(error.row, 2);
      assert.equal(error.column, 'at');
    }
  });

  it('refuses an error cell in the data, in a nullable field too, naming the cell', async () => {
    await writeWorkbook('errors.xlsx', {
      rows:
        header('id', 'size') +
        row(2, `${num('A2', 1)}${num('B2', 4)}`) +
        row(3, `${num('A3', 2)}<c r="B3" t="e"><v>#N/A</v></c>`),
    });
    const error = await loadError(
      table('errors.xlsx', [
        ['id', 'integer'],
        ['size', 'integer', true],
      ]),
    );
    assert.equal(error.code, 'ingest.error_cell');
    assert.equal(error.cell, 'B3');
    assert.equal(error.row, 2);
    assert.match(error.message, /table households/);
    assert.match(error.message, /#N\/A in cell B3/);
  });

  it('numbers data rows by the sheet past empty rows, as for a formula or error cell', async () => {
    const rows = (b4: string, a6: number) =>
      header('id', 'size') +
      row(2, `${num('A2', 1)}${num('B2', 4)}`) +
      row(3, '') +
      row(4, `${num('A4', 2)}${b4}`) +
      row(6, `${num('A6', a6)}${num('B6', 5)}`);
    const config = (name: string) =>
      table(name, [
        ['id', 'integer'],
        ['size', 'integer'],
      ]);
    await writeWorkbook('gaps-type.xlsx', { rows: rows(text('B4', 'four'), 3) });
    const mismatch = await loadError(config('gaps-type.xlsx'));
    assert.deepEqual([mismatch.code, mismatch.row, mismatch.column], ['ingest.type_mismatch', 3, 'size']);
    await writeWorkbook('gaps-formula.xlsx', { rows: rows('<c r="B4"><f>2*2</f><v>4</v></c>', 3) });
    assert.equal((await loadError(config('gaps-formula.xlsx'))).row, 3);
    await writeWorkbook('gaps-duplicate.xlsx', { rows: rows(num('B4', 4), 1) });
    const duplicate = await loadError(config('gaps-duplicate.xlsx'));
    assert.deepEqual(
      [duplicate.code, duplicate.row, duplicate.column],
      ['ingest.duplicate_primary_key', 5, 'id'],
    );
    assert.match(duplicate.message, /also in data row 1\)/);
  });
});

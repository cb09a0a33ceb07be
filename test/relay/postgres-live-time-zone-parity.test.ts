// A live table and its snapshot in a database whose sessions start in a local time zone (half-hour offset, summer
// time, a local mean time before 1935) and a day-first DateStyle: a timestamp key walked by cursor, and filters on
// timestamptz, date and boolean columns, answer the same pages whatever the database's own settings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { liveAndSnapshot, openLiveTestDatabase, recordsOf } from './postgres-live-fixture.ts';

const SETTINGS = ["timezone = 'America/St_Johns'", "DateStyle = 'SQL, DMY'"];

/** Every page of `query` on `entity`, `limit` rows at a time, as the bodies' data. */
async function pages(relay: PostgresRelay, entity: string, query: string, limit: number) {
  const base = `${recordsOf(entity)}?limit=${limit}${query === '' ? '' : `&${query}`}`;
  const seen: unknown[] = [];
  let next: string | undefined = base;
  for (let page = 0; next !== undefined; page++) {
    assert.ok(page < 20, 'the walk ends');
    const response = await relay.get(next);
    assert.equal(response.statusCode, 200, `${next}: ${response.body}`);
    const body = response.json();
    seen.push(body.data);
    const cursor: string | undefined = body.pagination.next_cursor;
    next = cursor === undefined ? undefined : `${base}&cursor=${encodeURIComponent(cursor)}`;
  }
  return seen;
}

describe('live PostgreSQL reads in a database with a local time zone and DateStyle', () => {
  let db: TestDatabase;
  let relay: PostgresRelay | undefined;
  before(async () => {
    db = await openLiveTestDatabase();
    await db.query(
      'CREATE TABLE shifts (id timestamp PRIMARY KEY, at timestamptz, day date, open boolean, label text)',
    );
    // 2024-03-10 02:30 does not exist in St. John's (clocks go forward) and 2024-11-03 01:30 happens twice there: a
    // timestamp without time zone must not pass through local time.
    await db.query(`INSERT INTO shifts VALUES
      ('1969-12-31 23:59:59.999999', '1969-12-31 23:59:59.9995+00', '1969-12-31', true, 'a'),
      ('1970-01-01 00:00:00', '1970-01-01 00:00:00-03:30', '0001-01-01', false, 'b'),
      ('2024-03-10 02:30:00', '2024-03-10 02:30:00-05', '9999-12-31', NULL, 'c'),
      ('0001-01-01 00:00:00', '0001-01-01 00:00:00+00', '1900-02-28', true, 'd'),
      ('9999-12-31 23:59:59.999', '9999-12-31 23:59:59.999+00', NULL, false, 'e'),
      ('2024-11-03 01:30:00', '2024-11-03 01:30:00-02:30', '2024-02-29', true, 'f')`);
    // Sessions opened from now on start with these (embedded PGlite has one session, where SET applies at once).
    const database = new URL(db.url).pathname.slice(1);
    for (const setting of SETTINGS) {
      await db.query(db.kind === 'pglite' ? `SET ${setting}` : `ALTER DATABASE "${database}" SET ${setting}`);
    }
    relay = await startPostgresRelay(
      liveAndSnapshot(
        'shifts',
        'shift_copies',
        '{ name: id, type: timestamp }, { name: at, type: timestamp }, { name: day, type: date }, { name: open, type: boolean }, { name: label, type: string }',
        ['id', 'at', 'day', 'open'],
      ),
      db.url,
    );
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  it('serves the same values, pages and filtered rows as the snapshot', async () => {
    assert.ok(relay);
    const first = (await relay.get(`${recordsOf('shifts')}?limit=1`)).json().data;
    assert.deepEqual(first, [
      {
        id: '0001-01-01T00:00:00.000Z',
        at: '0001-01-01T00:00:00.000Z',
        day: '1900-02-28',
        open: true,
        label: 'd',
      },
    ]);
    const cases: [string, string][] = [
      ['', 'd,a,b,c,f,e'],
      ['id.lte=1969-12-31T23:59:59.999Z', 'd,a'],
      ['id=2024-03-10T02:30:00Z', 'c'],
      ['id.in=2024-11-03T01:30:00Z,1970-01-01', 'b,f'],
      ['id.between=2024-03-10,2024-11-03T01:30:00%2B00:00', 'c,f'],
      ['at.in=1969-12-31T23:59:59.999Z', 'a'],
      ['at=1970-01-01T00:00:00-03:30', 'b'],
      ['at.lte=1969-12-31T23:59:59.999Z', 'd,a'],
      ['at.gte=2024-11-03T04:00:00Z', 'f,e'],
      ['at.between=2024-03-10,2024-03-11', 'c'],
      ['day.lte=1969-12-31', 'd,a,b'],
      ['day.in=0001-01-01,9999-12-31', 'b,c'],
      ['open=true', 'd,a,f'],
      ['open.lte=false', 'b,e'],
      ['open.in=true,false', 'd,a,b,f,e'],
    ];
    for (const [query, labels] of cases) {
      for (const limit of [1, 4]) {
        const live = await pages(relay, 'shifts', query, limit);
        const shown = live.flat().map((row) => (row as { label: string }).label);
        assert.equal(shown.join(','), labels, `${query} limit=${limit}`);
        assert.deepEqual(live, await pages(relay, 'shift_copies', query, limit), `${query} limit=${limit}`);
      }
    }
  });
});

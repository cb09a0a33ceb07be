// Live PostgreSQL values that compare and order as the snapshot of the same table holds them: uuids,
// collations, empty strings, numerics, bigints and local times.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import {
  ITEMS,
  liveAndSnapshot,
  liveDataset,
  openLiveTestDatabase,
  recordsOf,
  sameAnswers,
} from './postgres-live-fixture.ts';

describe('live PostgreSQL tables: values alike live and in the snapshot', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
  });
  after(() => db.close());

  it('a uuid key compares as the text a snapshot holds: other spellings and non-uuids match nothing', async () => {
    await db.query('CREATE TABLE tokens (id uuid PRIMARY KEY, label text)');
    await db.query(`INSERT INTO tokens VALUES ('6f1c1c2e-1d5c-4d55-9a4e-6f6b3c1f0a01', 'first'),
      ('c0ffee00-0000-4000-8000-000000000002', 'second')`);
    const relay = await startPostgresRelay(liveAndSnapshot('tokens', 'token_copies'), db.url);
    const LIVE_TOKENS = '/v1/datasets/registry/entities/tokens/records';
    const SNAPSHOT_TOKENS = '/v1/datasets/registry/entities/token_copies/records';
    const FIRST = '6f1c1c2e-1d5c-4d55-9a4e-6f6b3c1f0a01';
    try {
      const cases: [string, string[]][] = [
        [`id=${FIRST}`, ['first']],
        [`id=${FIRST.toUpperCase()}`, []],
        [`id=%7B${FIRST.replaceAll('-', '')}%7D`, []],
        ['id=not-a-uuid', []],
        [`id.in=not-a-uuid,${FIRST}`, ['first']],
        ['id.gte=a', ['second']],
        ['id.lte=7', ['first']],
        ['id.between=6,c0ffee00-0000-4000-8000-000000000002', ['first', 'second']],
      ];
      for (const [query, labels] of cases) {
        const live = await relay.get(`${LIVE_TOKENS}?${query}`);
        assert.equal(live.statusCode, 200, `${query}: ${live.body}`);
        assert.deepEqual(
          live.json().data.map((row: { label: string }) => row.label),
          labels,
          query,
        );
        assert.deepEqual(
          live.json().data,
          (await relay.get(`${SNAPSHOT_TOKENS}?${query}`)).json().data,
          query,
        );
      }
      assertProblem(await relay.get(`${LIVE_TOKENS}/not-a-uuid`), 404, 'schema.unknown_resource');
      assertProblem(await relay.get(`${LIVE_TOKENS}/${FIRST.toUpperCase()}`), 404, 'schema.unknown_resource');
      assert.equal((await relay.get(`${LIVE_TOKENS}/${FIRST}`)).json().label, 'first');
    } finally {
      await relay.close();
    }
  });

  it('a C-collated text key orders and compares alike live and in the snapshot, characters beyond U+FFFF included', async () => {
    await db.query('CREATE TABLE symbols (id text COLLATE "C" PRIMARY KEY, label text)');
    const keys = ['a', 'b\u{1f600}', 'b\ufffd', '\uff01', '\u{1f600}', '\ue000x'];
    for (const [index, key] of keys.entries()) {
      await db.query('INSERT INTO symbols VALUES ($1, $2)', [key, `label ${index}`]);
    }
    const relay = await startPostgresRelay(liveAndSnapshot('symbols', 'symbol_copies'), db.url);
    const path = (name: string) => `/v1/datasets/registry/entities/${name}/records`;
    const idsOf = (response: { json(): { data: { id: string }[] } }) =>
      response.json().data.map((row) => row.id);
    // Code-point (UTF-8 byte) order, which JavaScript's own string order is not for these keys.
    const ordered = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    try {
      assert.deepEqual(idsOf(await relay.get(`${path('symbols')}?limit=100`)), ordered);
      assert.deepEqual(idsOf(await relay.get(`${path('symbol_copies')}?limit=100`)), ordered);
      for (const query of [
        `id.gte=${encodeURIComponent('\uff01')}`,
        `id.lte=${encodeURIComponent('\uff01')}`,
        `id.between=${encodeURIComponent('b\u{1f600}')},${encodeURIComponent('\u{1f600}')}`,
        `id.gte=${encodeURIComponent('b\ufffd')}&id.lte=${encodeURIComponent('\ue000x')}`,
      ]) {
        const live = idsOf(await relay.get(`${path('symbols')}?${query}`));
        assert.deepEqual(live, idsOf(await relay.get(`${path('symbol_copies')}?${query}`)), query);
        assert.ok(live.length > 0, query);
      }
      // Paging one row at a time visits the keys in the same order on both.
      for (const name of ['symbols', 'symbol_copies']) {
        const seen: string[] = [];
        let next = `${path(name)}?limit=1`;
        for (let pages = 0; pages < 10 && next; pages++) {
          const body = (await relay.get(next)).json();
          seen.push(...body.data.map((row: { id: string }) => row.id));
          next = body.pagination.has_more
            ? `${path(name)}?limit=1&cursor=${encodeURIComponent(body.pagination.next_cursor)}`
            : '';
        }
        assert.deepEqual(seen, ordered, name);
      }
    } finally {
      await relay.close();
    }
  });

  it('empty strings (null in a snapshot) and numerics (doubles in a snapshot) filter alike live and in the snapshot', async () => {
    await db.query(
      'CREATE TABLE amounts (id integer PRIMARY KEY, name text, code varchar(8), amount numeric)',
    );
    await db.query(`INSERT INTO amounts VALUES
      (1, '', '', 0.1), (2, 'bob', 'b', 0.10000000000000000001), (3, NULL, NULL, 123456789012345678901234567890.123),
      (4, 'amy', 'a', 2.5)`);
    const relay = await startPostgresRelay(
      liveAndSnapshot(
        'amounts',
        'amount_copies',
        '{ name: id, type: integer }, { name: name, type: string }, { name: code, type: string }, { name: amount, type: number }',
        ['name', 'code', 'amount'],
      ),
      db.url,
    );
    const path = (name: string) => `/v1/datasets/registry/entities/${name}/records`;
    try {
      const cases: [string, number[]][] = [
        ['name.lte=zzz', [2, 4]],
        ['name.lte=%00', []],
        ['name.gte=%00', [2, 4]],
        ['name.between=a,c', [2, 4]],
        ['code.lte=b', [2, 4]],
        ['name.in=bob,amy', [2, 4]],
        // The value a record shows selects it, and both rows that show 0.1.
        ['amount=0.1', [1, 2]],
        ['amount.in=0.1,7', [1, 2]],
        ['amount.lte=0.1', [1, 2]],
        ['amount.gte=0.2', [3, 4]],
        ['amount=1.2345678901234568e%2B29', [3]],
        ['amount.between=1e29,1.2345678901234568e%2B29', [3]],
      ];
      for (const [query, ids] of cases) {
        const live = await relay.get(`${path('amounts')}?${query}`);
        assert.equal(live.statusCode, 200, `${query}: ${live.body}`);
        assert.deepEqual(
          live.json().data.map((row: { id: number }) => row.id),
          ids,
          query,
        );
        assert.equal(live.body, (await relay.get(`${path('amount_copies')}?${query}`)).body, query);
      }
    } finally {
      await relay.close();
    }
  });

  it('a view that computes local times from a timestamptz answers alike live and in the snapshot, whatever the database time zone', async () => {
    await db.query('CREATE TABLE moments (id integer PRIMARY KEY, at timestamptz NOT NULL)');
    await db.query("INSERT INTO moments VALUES (1, '2024-03-10 23:30:00+00'), (2, '2024-03-11 12:00:00+00')");
    // No timestamptz column is served: the zone only shapes what the view computes.
    await db.query(`CREATE VIEW moments_local AS
      SELECT id, at::timestamp AS at_local, at::date AS day, to_char(at, 'YYYY-MM-DD HH24:MI') AS label FROM moments`);
    // A database setting applies to the sessions opened after it (both relays open theirs below); embedded
    // PGlite serves every client in one session, where SET applies at once.
    const database = new URL(db.url).pathname.slice(1);
    await db.query(
      db.kind === 'pglite'
        ? "SET TIME ZONE 'Pacific/Kiritimati'"
        : `ALTER DATABASE "${database}" SET timezone = 'Pacific/Kiritimati'`,
    );
    let relay: PostgresRelay | undefined;
    try {
      relay = await startPostgresRelay(
        liveAndSnapshot(
          'moments_local',
          'moment_copies',
          '{ name: id, type: integer }, { name: at_local, type: timestamp }, { name: day, type: date }, { name: label, type: string }',
          ['at_local', 'day', 'label'],
        ),
        db.url,
      );
      assert.deepEqual((await relay.get(`${recordsOf('moments_local')}/1`)).json(), {
        id: 1,
        at_local: '2024-03-10T23:30:00.000Z',
        day: '2024-03-10',
        label: '2024-03-10 23:30',
      });
      await sameAnswers(relay, 'moments_local', 'moment_copies', [
        ['limit=10', [1, 2]],
        ['day=2024-03-10', [1]],
        ['day.gte=2024-03-11', [2]],
        ['at_local.lte=2024-03-11T00:00:00Z', [1]],
        ['label=2024-03-11%2012:00', [2]],
      ]);
    } finally {
      await relay?.close();
      await db.query(
        db.kind === 'pglite' ? 'RESET TIME ZONE' : `ALTER DATABASE "${database}" RESET timezone`,
      );
    }
  });

  it('a bigint served as number compares as the double a snapshot holds (rounded beyond 2^53)', async () => {
    await db.query('CREATE TABLE counts (id integer PRIMARY KEY, big bigint, small integer)');
    await db.query(`INSERT INTO counts VALUES (1, 9007199254740992, 1), (2, 9007199254740993, 2),
      (3, 123456789012345678, 3), (4, 9223372036854775807, NULL), (5, -9223372036854775808, -4), (6, 5, NULL),
      (7, NULL, 7)`);
    const relay = await startPostgresRelay(
      liveAndSnapshot(
        'counts',
        'count_copies',
        '{ name: id, type: integer }, { name: big, type: number }, { name: small, type: number }',
        ['big', 'small'],
      ),
      db.url,
    );
    try {
      await sameAnswers(relay, 'counts', 'count_copies', [
        ['limit=10', [1, 2, 3, 4, 5, 6, 7]],
        // 9007199254740993 reads as ...992, 123456789012345678 as ...680, the largest bigint as 2^63.
        ['big=9007199254740992', [1, 2]],
        ['big=9007199254740993', [1, 2]],
        ['big.in=9007199254740992,5', [1, 2, 6]],
        ['big.in=5,6', [6]],
        ['big.lte=9007199254740992', [1, 2, 5, 6]],
        ['big.gte=9007199254740993', [1, 2, 3, 4]],
        ['big.between=9007199254740991,9007199254740992', [1, 2]],
        ['big=123456789012345680', [3]],
        ['big.in=123456789012345680,1', [3]],
        ['big=9223372036854775807', [4]],
        ['big.gte=9223372036854775808', [4]],
        ['big.lte=-9223372036854775809', [5]],
        ['big=5.5', []],
        ['big.between=4.5,5.5', [6]],
        ['big.gte=1e300', []],
        ['big.lte=1e300', [1, 2, 3, 4, 5, 6]],
        ['big.gte=-1e300', [1, 2, 3, 4, 5, 6]],
        ['small=1.5', []],
        ['small.gte=1.5', [2, 3, 7]],
        ['small.in=-4,7.5', [5]],
      ]);
    } finally {
      await relay.close();
    }
  });

  it('a bigint served as integer: a row beyond 2^53 (which a snapshot refuses to load) answers row_invalid when read', async () => {
    await db.query('CREATE TABLE wide_counts (id integer PRIMARY KEY, big bigint)');
    await db.query('INSERT INTO wide_counts VALUES (1, 5), (2, 9007199254740993)');
    const fields = '{ name: id, type: integer }, { name: big, type: integer }';
    assert.equal(
      (await startupFailure(db.url, liveAndSnapshot('wide_counts', 'wide_count_copies', fields, ['big'])))
        .code,
      'ingest.type_mismatch',
    );
    const relay = await startPostgresRelay(
      liveDataset('wide_counts', fields, '', '{ field: big, ops: [eq, gte] }'),
      db.url,
    );
    try {
      assert.deepEqual((await relay.get(`${ITEMS}?big=5`)).json().data, [{ id: 1, big: 5 }]);
      assertProblem(await relay.get(`${ITEMS}?big.gte=6`), 502, 'datasource.row_invalid', /`big`/);
      assertProblem(await relay.get(ITEMS), 502, 'datasource.row_invalid', /`big`/);
    } finally {
      await relay.close();
    }
  });

  it('filter values at the edges of their types answer alike live and in the snapshot', async () => {
    await db.query('CREATE TABLE readings (id integer PRIMARY KEY, level numeric, taken_at timestamptz)');
    await db.query(`INSERT INTO readings VALUES (1, 0, '2024-01-02 03:04:04.5+00'),
      (2, 1e-400, '2024-01-02 03:04:05+00'), (3, 0.5, '2024-01-02 03:04:05.0009+00'), (4, -1e-400, NULL)`);
    const fields =
      '{ name: id, type: integer }, { name: level, type: number }, { name: taken_at, type: timestamp }';
    const relay = await startPostgresRelay(
      liveAndSnapshot('readings', 'reading_copies', fields, ['level', 'taken_at']),
      db.url,
    );
    try {
      // RFC 3339 lets `T` and `Z` be lower case: the same instant as the upper-case spelling.
      await sameAnswers(relay, 'readings', 'reading_copies', [
        ['taken_at=2024-01-02t03:04:05z', [2, 3]],
        ['taken_at.gte=2024-01-02t03:04:05Z', [2, 3]],
        ['taken_at.lte=2024-01-02T03:04:04.5z', [1]],
        ['taken_at.between=2024-01-02t04:04:04%2B01:00,2024-01-02t03:04:05z', [1, 2, 3]],
        ['level.gte=0e-400', [1, 2, 3, 4]],
      ]);
      // A nonzero number no double holds but 0 is refused, not compared as 0.
      for (const query of ['level.gte=1e-400', 'level.between=-1e-400,1', 'level=2e-324']) {
        for (const entity of ['readings', 'reading_copies']) {
          assertProblem(await relay.get(`${recordsOf(entity)}?${query}`), 400, 'filter.invalid_value');
        }
      }
    } finally {
      await relay.close();
    }
  });

  it('numerics beyond the double range filter as the snapshot reads them: 1e-400 as 0, 1e400 as a row_invalid', async () => {
    await db.query('CREATE TABLE extremes (id integer PRIMARY KEY, amount numeric)');
    await db.query(`INSERT INTO extremes VALUES (1, 1e-400), (2, 0), (3, 2.5), (4, -1e-400), (5, 4.9e-324),
      (6, NULL), (7, 1.7976931348623157e308), (8, -0.1)`);
    const relay = await startPostgresRelay(
      liveAndSnapshot(
        'extremes',
        'extreme_copies',
        '{ name: id, type: integer }, { name: amount, type: number }',
        ['amount'],
      ),
      db.url,
    );
    try {
      await sameAnswers(relay, 'extremes', 'extreme_copies', [
        ['limit=10', [1, 2, 3, 4, 5, 6, 7, 8]],
        ['amount=0', [1, 2, 4]],
        ['amount=-0', [1, 2, 4]],
        ['amount.in=0,2.5', [1, 2, 3, 4]],
        ['amount.lte=0', [1, 2, 4, 8]],
        ['amount.gte=0', [1, 2, 3, 4, 5, 7]],
        ['amount.gte=1e-323', [3, 7]],
        ['amount=4.9e-324', [5]],
        ['amount.between=-1,1', [1, 2, 4, 5, 8]],
        ['amount=-0.1', [8]],
        ['amount.in=-0.1,5e-324', [5, 8]],
        ['amount.gte=1.7976931348623157e308', [7]],
        ['amount.lte=-1e-320', [8]],
      ]);
    } finally {
      await relay.close();
    }
    // 1e400 is beyond the double range: a snapshot refuses the table, a live read answers row_invalid for the row.
    await db.query('CREATE TABLE overflows (id integer PRIMARY KEY, amount numeric)');
    await db.query('INSERT INTO overflows VALUES (1, 1e400), (2, 2.5), (3, -1e400)');
    const fields = '{ name: id, type: integer }, { name: amount, type: number }';
    assert.equal(
      (await startupFailure(db.url, liveAndSnapshot('overflows', 'overflow_copies', fields, ['amount'])))
        .code,
      'ingest.type_mismatch',
    );
    const live = await startPostgresRelay(
      liveDataset('overflows', fields, '', '{ field: amount, ops: [eq, in, gte, lte, between] }'),
      db.url,
    );
    try {
      for (const query of ['amount=2.5', 'amount.in=2.5,3', 'amount.between=-1e308,1e308']) {
        const answer = await live.get(`${ITEMS}?${query}`);
        assert.equal(answer.statusCode, 200, `${query}: ${answer.body}`);
        assert.deepEqual(answer.json().data, [{ id: 2, amount: 2.5 }], query);
      }
      for (const query of ['amount.gte=1', 'amount.lte=1', 'limit=5']) {
        assertProblem(await live.get(`${ITEMS}?${query}`), 502, 'datasource.row_invalid', /`amount`/);
      }
    } finally {
      await live.close();
    }
  });
});

// Reloads: atomic generation swaps under concurrent reads, failed reloads that keep serving and are reported,
// cursors of a replaced generation, and the mtime and interval refresh modes.
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, openSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { assertProblem } from './assert-problem.ts';
import {
  closeHarness as close,
  DISTRICTS_CSV,
  type Harness,
  peopleCsv,
  startHarness,
} from './reload-fixture.ts';

const PEOPLE = '/v1/datasets/people/entities/person/records';
const DISTRICTS = '/v1/datasets/people/entities/district/records';
const BY_DISTRICT = '/v1/datasets/people/aggregates/people_by_district';

function ids(response: Response): unknown[] {
  assert.equal(response.statusCode, 200, response.body.slice(0, 300));
  return response.json().data.map((row: { id: unknown }) => row.id);
}

describe('admin reload', () => {
  let h: Harness;
  beforeEach(async () => {
    if (h) await close(h);
    h = await startHarness();
  });
  after(() => close(h));

  it('swaps in new data for every table at once and answers the counts', async () => {
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 30);
    h.fixture.writePeople(peopleCsv(40));
    h.fixture.writeDistricts(`${DISTRICTS_CSV}d,Delta\n`);
    const before = h.relay.runtime.state.generation;
    const response = await h.post('/admin/v1/reload');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { status: 'ok', counts: { total: 2, succeeded: 2, failed: 0 } });
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.notEqual(h.relay.runtime.state.generation?.version, before?.version);
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 40);
    assert.equal((await h.get(DISTRICTS)).json().data.length, 4);
  });

  it('reloads one table and leaves the other snapshot as it was', async () => {
    const districtsBefore = h.relay.runtime.state.generation?.table('people', 'district_table');
    h.fixture.writePeople(peopleCsv(35));
    h.fixture.writeDistricts(`${DISTRICTS_CSV}d,Delta\n`);
    const response = await h.post('/admin/v1/datasets/people/tables/people_table/reload');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { status: 'ok', counts: { reloaded: 1 } });
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 35);
    assert.equal(h.relay.runtime.state.generation?.table('people', 'district_table'), districtsBefore);
    assert.equal((await h.get(DISTRICTS)).json().data.length, 3, 'the district table was not reloaded');
  });

  it('answers 404 admin.unknown_resource for a table or dataset it does not serve', async () => {
    assertProblem(
      await h.post('/admin/v1/datasets/people/tables/nope/reload'),
      404,
      'admin.unknown_resource',
    );
    assertProblem(
      await h.post('/admin/v1/datasets/nope/tables/people_table/reload'),
      404,
      'admin.unknown_resource',
    );
    // Entity names are public, table ids are not: an entity name is not a table.
    assertProblem(
      await h.post('/admin/v1/datasets/people/tables/person/reload'),
      404,
      'admin.unknown_resource',
    );
  });

  it('names, for an unknown dataset or table, the ones it serves, never echoing what is not an id', async () => {
    const cases: [string, string][] = [
      ['/admin/v1/datasets/nope/tables/people_table/reload', 'no dataset nope: the datasets are people'],
      [
        '/admin/v1/datasets/people/tables/person/reload',
        'no table person in dataset people: its tables are people_table, district_table',
      ],
      [
        '/admin/v1/datasets/constructor/tables/__proto__/reload',
        'no dataset constructor: the datasets are people',
      ],
      [
        '/admin/v1/datasets/people/tables/__proto__/reload',
        'no table of that id (ids match ^[a-z][a-z0-9_]*$) in dataset people: its tables are people_table, district_table',
      ],
      [
        `/admin/v1/datasets/${'x'.repeat(300)}/tables/t/reload`,
        `no dataset ${'x'.repeat(64)}…: the datasets are people`,
      ],
      [
        '/admin/v1/datasets/people/tables/%3Cb%3E%0A/reload',
        'no table of that id (ids match ^[a-z][a-z0-9_]*$) in dataset people: its tables are people_table, district_table',
      ],
    ];
    for (const [url, detail] of cases)
      assertProblem(await h.post(url), 404, 'admin.unknown_resource', detail);
  });

  it('keeps the current generation, its caches and its cursors when the data did not change', async () => {
    const first = await h.get(`${PEOPLE}?limit=5`);
    const cursor = first.json().pagination.next_cursor;
    const before = h.relay.runtime.state.generation;
    h.fixture.writePeople(peopleCsv(30)); // same bytes, new mtime
    assert.equal((await h.post('/admin/v1/reload')).statusCode, 200);
    assert.equal(h.relay.runtime.state.generation, before);
    const next = await h.get(`${PEOPLE}?limit=5&cursor=${cursor}`);
    assert.deepEqual(ids(next), [6, 7, 8, 9, 10]);
  });

  it('invalidates cursors of the replaced generation with pagination.cursor_invalidated', async () => {
    const first = await h.get(`${PEOPLE}?limit=5`);
    const cursor = first.json().pagination.next_cursor;
    assert.equal(typeof cursor, 'string');
    h.fixture.writePeople(peopleCsv(30, 7));
    assert.equal((await h.post('/admin/v1/reload')).statusCode, 200);
    assertProblem(await h.get(`${PEOPLE}?limit=5&cursor=${cursor}`), 400, 'pagination.cursor_invalidated');
    // A fresh walk works on the new generation.
    const fresh = await h.get(`${PEOPLE}?limit=5`);
    assert.deepEqual(
      ids(await h.get(`${PEOPLE}?limit=5&cursor=${fresh.json().pagination.next_cursor}`)),
      [6, 7, 8, 9, 10],
    );
  });

  it('changes the ETag of a read whose data changed, and keeps it when the data did not', async () => {
    const etagOf = async () => (await h.get(`${PEOPLE}?limit=3`)).headers.etag;
    const before = await etagOf();
    assert.equal((await h.post('/admin/v1/datasets/people/tables/district_table/reload')).statusCode, 200);
    assert.equal(await etagOf(), before, 'reloading another table leaves this ETag alone');
    h.fixture.writePeople(peopleCsv(30, 3));
    assert.equal((await h.post('/admin/v1/datasets/people/tables/people_table/reload')).statusCode, 200);
    assert.notEqual(await etagOf(), before);
  });

  it('answers an aggregate byte for byte until its own data changes, and then with a new time and ETag', async () => {
    const first = await h.get(BY_DISTRICT);
    assert.equal(first.statusCode, 200, first.body);
    const modified = (name: string) =>
      new Date(Math.floor(statSync(join(h.fixture.dir, name)).mtimeMs)).toISOString();
    assert.equal(first.json().freshness.as_of, modified('people.csv'));
    // Another table changes, and this one's file is rewritten with the same bytes: the same answer.
    h.fixture.writeDistricts(`${DISTRICTS_CSV}d,Delta\n`);
    h.fixture.writePeople(peopleCsv(30));
    assert.equal((await h.post('/admin/v1/reload')).statusCode, 200);
    const same = await h.get(BY_DISTRICT);
    assert.equal(same.headers.etag, first.headers.etag);
    assert.equal(same.body, first.body);
    h.fixture.writePeople(peopleCsv(33));
    assert.equal((await h.post('/admin/v1/reload')).statusCode, 200);
    const changed = await h.get(BY_DISTRICT);
    assert.notEqual(changed.headers.etag, first.headers.etag);
    assert.deepEqual(changed.json().freshness, {
      computed_at: modified('people.csv'),
      as_of: modified('people.csv'),
    });
  });

  it('serves every concurrent read while reloads swap the data underneath (zero failed requests)', async () => {
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    let reloading = true;
    const reloads = (async () => {
      for (let round = 0; round < 12; round++) {
        h.fixture.writePeople(peopleCsv(30 + (round % 3) * 5, round));
        const response = await h.post(
          round % 2 === 0 ? '/admin/v1/reload' : '/admin/v1/datasets/people/tables/people_table/reload',
        );
        assert.equal(response.statusCode, 200, response.body);
      }
      reloading = false;
    })();
    // Every version written holds people 1..30 or more in districts a..c, and districts a..c: a read that sees a
    // table half swapped, or empty, shows fewer rows than that.
    const assertWholeTable = (path: number, body: { data?: Record<string, unknown>[]; id?: unknown }) => {
      const rows = body.data ?? [];
      if (path === 0) {
        assert.deepEqual(
          rows.map((row) => row.id),
          [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        );
      } else if (path === 1) {
        assert.deepEqual([body.id, (body as { district?: unknown }).district], [7, 'b']);
      } else if (path === 2) {
        assert.ok(rows.length >= 10, `${rows.length} people in district b`);
        assert.deepEqual([...new Set(rows.map((row) => row.district))], ['b']);
      } else {
        assert.deepEqual(
          rows.map((row) => row.code),
          ['a', 'b', 'c'],
        );
      }
    };
    const reader = async () => {
      let reads = 0;
      while (reloading || reads < 20) {
        const paths = [`${PEOPLE}?limit=10`, `${PEOPLE}/7`, `${PEOPLE}?district=b`, DISTRICTS];
        const response = await h.get(paths[reads % paths.length] as string);
        count(response.statusCode);
        if (response.statusCode === 200) assertWholeTable(reads % paths.length, response.json());
        reads++;
      }
      return reads;
    };
    const reads = await Promise.all([reader(), reader(), reader(), reader(), reloads]);
    const total = (reads.slice(0, 4) as number[]).reduce((sum, n) => sum + n, 0);
    assert.deepEqual([...statuses.keys()], [200], `statuses: ${JSON.stringify([...statuses])}`);
    assert.equal(statuses.get(200), total);
    assert.ok(total >= 80);
  });
});

describe('a failed reload', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => close(h));

  it('keeps serving the previous data and reports 500 admin.reload_failed with counts and failures', async () => {
    const generation = h.relay.runtime.state.generation;
    h.fixture.writePeople('id,district,born\n1,a,2001-02-03\n2,b,not-a-date\n');
    h.fixture.writeDistricts(`${DISTRICTS_CSV}d,Delta\n`);
    const response = await h.post('/admin/v1/reload');
    assertProblem(response, 500, 'admin.reload_failed', /people\/people_table \(ingest\.type_mismatch\)/);
    const body = response.json();
    assert.deepEqual(body.counts, { total: 2, succeeded: 1, failed: 1 });
    assert.deepEqual(body.failures, [
      { dataset_id: 'people', table_id: 'people_table', code: 'ingest.type_mismatch' },
    ]);
    assert.equal(h.relay.runtime.state.generation, generation, 'nothing was swapped in');
    // All or nothing: the district table loaded fine but is not served either.
    assert.equal((await h.get(DISTRICTS)).json().data.length, 3);
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 30);
    assert.equal((await h.get('/ready', undefined)).statusCode, 200);
  });

  it('reports a failed table reload the same way', async () => {
    const response = await h.post('/admin/v1/datasets/people/tables/people_table/reload');
    assertProblem(response, 500, 'admin.reload_failed');
    assert.deepEqual(response.json().counts, { total: 1, succeeded: 0, failed: 1 });
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 30);
  });

  it('is logged with the table, the code and no row data', () => {
    const failures = h.logLines
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg.startsWith('reload failed'));
    assert.equal(failures.length, 2);
    for (const line of failures) {
      assert.equal(line.level, 50);
      assert.equal(line.table_id, 'people_table');
      assert.equal(line.err_code, 'ingest.type_mismatch');
      assert.doesNotMatch(JSON.stringify(line), /not-a-date/);
    }
  });

  it('is counted in the metrics', async () => {
    assert.equal(
      await h.metric(/^ambit_relay_reloads_total\{scope="all",trigger="admin",outcome="failed"\}/),
      1,
    );
    assert.equal(
      await h.metric(/^ambit_relay_reloads_total\{scope="table",trigger="admin",outcome="failed"\}/),
      1,
    );
    assert.equal(
      await h.metric(
        /^ambit_relay_source_loads_total\{dataset="people",table="people_table",outcome="failed"\}/,
      ),
      2,
    );
    assert.equal(
      await h.metric(/^ambit_relay_source_loads_total\{dataset="people",table="people_table",outcome="ok"\}/),
      1,
    );
    assert.equal(await h.metric(/^ambit_relay_source_rows\{dataset="people",table="people_table"\}/), 30);
  });

  it('recovers on the next reload once the source is fixed', async () => {
    h.fixture.writePeople(peopleCsv(12));
    assert.equal((await h.post('/admin/v1/reload')).statusCode, 200);
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 12);
    assert.equal((await h.get(DISTRICTS)).json().data.length, 4);
  });
});

/** Dates a file's modification a minute back: a file written moments ago may still be being written. */
function settle(path: string): void {
  const past = new Date(Date.now() - 60_000);
  utimesSync(path, past, past);
}

describe('refresh modes', () => {
  let h: Harness;
  const people = () => join(h.fixture.dir, 'people.csv');
  before(async () => {
    h = await startHarness();
  });
  after(() => close(h));

  it('mtime: a changed CSV is picked up by the next poll', async () => {
    h.fixture.writePeople(peopleCsv(31));
    settle(people());
    await h.relay.refresh.runOnce();
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 31);
    assert.equal(
      await h.metric(/^ambit_relay_reloads_total\{scope="table",trigger="mtime",outcome="ok"\}/),
      1,
    );
  });

  it('mtime: an unchanged file is not reloaded', async () => {
    const generation = h.relay.runtime.state.generation;
    await h.relay.refresh.runOnce();
    await h.relay.refresh.runOnce();
    assert.equal(
      await h.metric(/^ambit_relay_reloads_total\{scope="table",trigger="mtime",outcome="ok"\}/),
      1,
    );
    // The interval table reloads every round, but with equal data the generation stays.
    assert.equal(h.relay.runtime.state.generation, generation);
  });

  it('interval: the table reloads on every round, changed or not, once its file holds still', async () => {
    const reloads = async () =>
      (await h.metric(/^ambit_relay_reloads_total\{scope="table",trigger="interval",outcome="ok"\}/)) ?? 0;
    const before = await reloads();
    h.fixture.writeDistricts(`${DISTRICTS_CSV}e,Epsilon\n`);
    // Written moments ago, the file may still be being written (a CSV cut off mid-row parses): not read this round.
    await h.relay.refresh.runOnce();
    assert.equal(await reloads(), before);
    assert.equal((await h.get(DISTRICTS)).json().data.length, 3);
    settle(join(h.fixture.dir, 'districts.csv'));
    await h.relay.refresh.runOnce();
    assert.equal(await reloads(), before + 1);
    assert.equal((await h.get(DISTRICTS)).json().data.length, 4);
  });

  it('mtime: a file replaced by an atomic rename is picked up', async () => {
    const { renameSync, writeFileSync } = await import('node:fs');
    const staged = join(h.fixture.dir, 'people.csv.new');
    writeFileSync(staged, peopleCsv(33));
    settle(staged);
    renameSync(staged, people());
    await h.relay.refresh.runOnce();
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 33);
  });

  it('mtime: a deleted file fails the reload and the last data keeps being served', async () => {
    unlinkSync(join(h.fixture.dir, 'people.csv'));
    await h.relay.refresh.runOnce();
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 33);
    assert.equal(
      await h.metric(/^ambit_relay_reloads_total\{scope="table",trigger="mtime",outcome="failed"\}/),
      1,
    );
    h.fixture.writePeople(peopleCsv(34));
    settle(people());
    await h.relay.refresh.runOnce();
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 34);
  });

  it('mtime: a file being rewritten in place is served only once it stopped changing', async () => {
    const lines = peopleCsv(40, 3).split(/(?<=\n)/);
    const fd = openSync(people(), 'r+');
    try {
      ftruncateSync(fd, 0);
      writeSync(fd, lines.slice(0, 11).join(''));
      await h.relay.refresh.runOnce();
      assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 34, 'half a file is not served');
      writeSync(fd, lines.slice(11).join(''));
      await h.relay.refresh.runOnce();
      assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 34, 'it is still changing');
    } finally {
      closeSync(fd);
    }
    // Unchanged since the previous poll: written out, it loads.
    await h.relay.refresh.runOnce();
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 40);
  });

  it('mtime: a restored backup with an older modification time is picked up', async () => {
    h.fixture.writePeople(peopleCsv(41));
    const year = new Date(Date.now() - 365 * 86_400_000);
    utimesSync(people(), year, year);
    await h.relay.refresh.runOnce();
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 41);
  });
});

describe('manual refresh', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ peopleRefresh: '{ mode: manual }' });
  });
  after(() => close(h));

  it('never reloads on its own: only the admin listener reloads it', async () => {
    h.fixture.writePeople(peopleCsv(5));
    await h.relay.refresh.runOnce();
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 30);
    assert.equal((await h.post('/admin/v1/datasets/people/tables/people_table/reload')).statusCode, 200);
    assert.equal((await h.get(`${PEOPLE}?limit=1000`)).json().data.length, 5);
  });
});

// Declared aggregates over the same rows read from CSV files and from PostgreSQL snapshots answer alike, in every
// format and with the same cells suppressed; after a reload that changed the database, an aggregate answers the new
// data under a new ETag (never the old answer, also for requests made while the reload runs).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import {
  createParityTables,
  MIN_CELL,
  neutral,
  obsCsv,
  parityDataset,
  parityRows,
  type Row,
  regionsCsv,
} from './postgres-aggregate-parity-fixture.ts';

const BASE = '/v1/datasets/registry/aggregates';
const GROUPINGS = ['region', 'day', 'at', 'naive', 'flag', 'rname', 'region,flag', 'at,rname', ''];
const FILTERS = [
  '',
  '&region.in=Z%C3%BCrich,z%C3%BCrich',
  '&at.gte=2024-01-01T00:00:00%2B02:00',
  '&home.name=north',
];
const FORMATS = ['json', 'csv', 'sdmx-json'];
/** Headers that differ by nature: the tag (it covers each table's source config), the time, the request. */
const VARYING = new Set(['etag', 'date', 'x-request-id', 'x-ambit-freshness', 'link', 'content-length']);

describe('aggregates over the same rows from CSV files and from PostgreSQL snapshots', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  let dir: string;
  let rows: Row[];
  before(async () => {
    db = await openTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'ambit-aggregate-parity-'));
    rows = parityRows();
    await createParityTables(db, rows);
    writeFileSync(join(dir, 'obs.csv'), obsCsv(rows));
    writeFileSync(join(dir, 'regions.csv'), regionsCsv());
    relay = await startPostgresRelay(parityDataset(dir), db.url, { admin: true });
  });
  after(async () => {
    await relay?.close();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every query of both sides whose answers differ (status, headers or body), as `aggregate?query`. */
  async function differences(): Promise<string[]> {
    const found: string[] = [];
    for (const kind of ['mask', 'omit'])
      for (const groupBy of GROUPINGS)
        for (const filter of FILTERS)
          for (const format of FORMATS) {
            const query = `?group_by=${encodeURIComponent(groupBy)}${filter}&f=${format}`;
            const csv = await relay.get(`${BASE}/c_${kind}${query}`);
            const pg = await relay.get(`${BASE}/p_${kind}${query}`);
            const headers = (response: typeof csv, side: 'c' | 'p') =>
              neutral(
                JSON.stringify(Object.entries(response.headers).filter(([name]) => !VARYING.has(name))),
                side,
              );
            const same =
              csv.statusCode === 200 &&
              pg.statusCode === 200 &&
              neutral(csv.body, 'c') === neutral(pg.body, 'p') &&
              headers(csv, 'c') === headers(pg, 'p');
            if (!same) found.push(`${kind}${query}`);
          }
    return found;
  }

  it('answers every grouping, filter and format alike, with the same cells suppressed', async () => {
    assert.deepEqual(await differences(), []);
    // Not alike by being empty: a cell of exactly the minimum is shown, one below it masked or left out.
    const masked = (await relay.get(`${BASE}/p_mask?group_by=region&measures=rows,sum_big`)).json();
    const byRegion = new Map(masked.observations.map((o: { region: string | null }) => [o.region, o]));
    assert.deepEqual(byRegion.get('Zürich'), {
      region: 'Zürich',
      rows: MIN_CELL,
      sum_big: 27021597764222980,
    });
    assert.deepEqual(byRegion.get('zürich'), {
      region: 'zürich',
      rows: null,
      sum_big: null,
      attributes: { rows$status: 'S', sum_big$status: 'S' },
    });
    assert.equal(masked.disclosure_control.suppressed_observations, 2);
    const omitted = (await relay.get(`${BASE}/p_omit?group_by=region&measures=rows`)).json();
    assert.deepEqual(
      omitted.observations.map((o: { region: string | null }) => o.region),
      // Code-point order, nulls last; e + U+0301 is not é.
      ['ZÜRICH', 'Zürich', 'e\u0301', '\u00e9', null],
    );
  });

  it('answers a reloaded snapshot with the new data and a new tag, never the old answer', async () => {
    const path = `${BASE}/p_mask?group_by=region&measures=rows`;
    const before = await relay.get(path);
    const oldTag = String(before.headers.etag);
    const moved = rows.find((row) => row.region === 'ZÜRICH') as Row;
    // One ZÜRICH row becomes zürich: zürich reaches the minimum and is shown.
    await db.query("UPDATE obs SET region = 'zürich' WHERE id = $1", [moved.id]);
    moved.region = 'zürich';
    const seen = new Map<string, Set<string>>();
    let reloaded = false;
    const reload = relay.admin('POST', '/admin/v1/datasets/registry/tables/p_obs/reload').then((reply) => {
      reloaded = true;
      return reply;
    });
    const ask = async () => {
      do {
        const reply = await relay.get(path);
        const tag = String(reply.headers.etag);
        seen.set(tag, (seen.get(tag) ?? new Set()).add(neutral(reply.body, 'p')));
      } while (!reloaded);
    };
    await Promise.all([reload, ask(), ask(), ask()]);
    assert.equal((await reload).statusCode, 200);
    for (const [tag, bodies] of seen) assert.equal(bodies.size, 1, `one answer under ${tag}`);

    const afterReload = await relay.get(path, { 'if-none-match': oldTag });
    assert.equal(afterReload.statusCode, 200);
    assert.notEqual(afterReload.headers.etag, oldTag);
    const counts = new Map(
      afterReload.json().observations.map((o: { region: string; rows: number }) => [o.region, o.rows]),
    );
    assert.equal(counts.get('zürich'), 3);
    assert.equal(counts.get('ZÜRICH'), 3);

    // The same change made to the CSV file: both sides agree again.
    writeFileSync(join(dir, 'obs.csv'), obsCsv(rows));
    assert.equal(
      (await relay.admin('POST', '/admin/v1/datasets/registry/tables/c_obs/reload')).statusCode,
      200,
    );
    assert.deepEqual(await differences(), []);
  });

  it('answers anew when only the table a relationship reaches was reloaded', async () => {
    const path = `${BASE}/p_mask?group_by=rname&measures=rows,sum_pop&f=csv`;
    const before = await relay.get(path);
    await db.query("UPDATE regions SET name = 'Nord', pop = 7 WHERE region_id = 'r1'");
    assert.equal(
      (await relay.admin('POST', '/admin/v1/datasets/registry/tables/p_regions/reload')).statusCode,
      200,
    );
    const afterReload = await relay.get(path, { 'if-none-match': String(before.headers.etag) });
    assert.equal(afterReload.statusCode, 200);
    assert.notEqual(afterReload.body, before.body);
    assert.match(afterReload.body, /\r\nNord,/);
    assert.doesNotMatch(afterReload.body, /\r\nnorth,/);
  });
});

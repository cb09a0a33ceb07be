// The reserved parameters (`limit`, `cursor`, `fields`, `expand`) of an entity over a live PostgreSQL table answer
// exactly as those of the same table loaded as a snapshot: the same refusals, codes and details, the same rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ID_AND_LABEL, liveAndSnapshot, openLiveTestDatabase, recordsOf } from './postgres-live-fixture.ts';

/** `CURSOR` stands for the entity's own cursor after its first row. */
const EXPECTED: readonly (readonly [string, number, string])[] = [
  ['?limit=1&limit=2', 400, 'filter.invalid_value'],
  ['?limit=1&limit.eq=2', 400, 'filter.invalid_value'],
  ['?cursor=CURSOR&cursor=CURSOR', 400, 'filter.invalid_value'],
  ['?cursor=CURSOR&cursor.eq=CURSOR', 400, 'filter.invalid_value'],
  ['?fields=id&fields.eq=label', 400, 'filter.invalid_value'],
  ['?expand=x&expand.eq=x', 400, 'filter.invalid_value'],
  ['?limit.eq=5', 400, 'filter.not_allowed'],
  ['?cursor.eq=CURSOR', 400, 'filter.not_allowed'],
  ['?fields.in=id,label', 400, 'filter.not_allowed'],
  ['?expand.gte=x', 400, 'filter.not_allowed'],
  ['?limit.foo=5', 400, 'filter.unsupported_op'],
  ['?Limit=5', 400, 'filter.not_allowed'],
  ['?limit=', 400, 'filter.limit_out_of_range'],
  ['?limit', 400, 'filter.limit_out_of_range'],
  ['?fields=', 400, 'filter.unknown_field'],
  ['?fields=%20,', 400, 'filter.unknown_field'],
  ['?expand=', 400, 'expand.not_allowed'],
  ['?cursor=', 400, 'pagination.cursor_malformed'],
  ['?limit=%205', 400, 'filter.limit_out_of_range'],
  ['?limit=0', 400, 'filter.limit_out_of_range'],
  ['?limit=-1', 400, 'filter.limit_out_of_range'],
  ['?limit=1e2', 400, 'filter.limit_out_of_range'],
  ['?limit=0x10', 400, 'filter.limit_out_of_range'],
  ['?limit=%2B5', 400, 'filter.limit_out_of_range'],
  ['?limit=5.0', 400, 'filter.limit_out_of_range'],
  ['?limit=1001', 400, 'filter.limit_out_of_range'],
  ['?fields=nope', 400, 'filter.unknown_field'],
  ['?expand=nope', 400, 'expand.not_allowed'],
  ['?expand=*', 400, 'expand.not_allowed'],
  ['?fields=id&expand=nope', 400, 'expand.not_allowed'],
  ['?%6Cimit=2', 200, ''],
  ['?limit=0000002', 200, ''],
  ['?limit=1000', 200, ''],
  ['?fields=label,label,id&limit=2', 200, ''],
  ['?fields=%20label%20&limit=2', 200, ''],
  ['?fields=id&limit=2&cursor=CURSOR', 400, 'pagination.cursor_invalidated'],
  ['?limit=2&cursor=CURSOR', 200, ''],
  ['/2?fields=id&fields.eq=id', 400, 'filter.invalid_value'],
  ['/2?fields.eq=id', 400, 'filter.not_allowed'],
  ['/2?expand=x&expand.eq=x', 400, 'filter.invalid_value'],
  ['/2?limit=1', 400, 'filter.not_allowed'],
  ['/2?fields=', 400, 'filter.unknown_field'],
  ['/2?fields=label,label', 200, ''],
];

describe('live PostgreSQL tables: reserved query parameters as on a snapshot', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openLiveTestDatabase();
    await db.query('CREATE TABLE things (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO things SELECT g, 'thing ' || g FROM generate_series(1, 5) g");
    relay = await startPostgresRelay(liveAndSnapshot('things', 'thing_copies', ID_AND_LABEL), db.url);
  });
  after(async () => {
    await relay?.close();
    await db.query('DROP TABLE things');
    await db.close();
  });

  const answer = (response: Response) => {
    const body = response.json();
    return response.statusCode === 200
      ? { status: 200, body }
      : { status: response.statusCode, code: body.code, detail: body.detail };
  };

  it('refuse and read alike, with the documented codes', async () => {
    const cursors = new Map<string, string>();
    for (const entity of ['things', 'thing_copies']) {
      const first = (await relay.get(`${recordsOf(entity)}?limit=1`)).json();
      cursors.set(entity, encodeURIComponent(first.pagination.next_cursor));
    }
    for (const [query, status, code] of EXPECTED) {
      const [live, snapshot] = await Promise.all(
        ['things', 'thing_copies'].map(async (entity) =>
          answer(
            await relay.get(`${recordsOf(entity)}${query.replaceAll('CURSOR', `${cursors.get(entity)}`)}`),
          ),
        ),
      );
      assert.equal(live?.status, status, `${query}: ${JSON.stringify(live)}`);
      if (status !== 200) assert.equal(live?.code, code, query);
      if (live?.body?.pagination?.next_cursor !== undefined) {
        // Each entity's cursors are its own; the rest of the page is the same.
        live.body.pagination.next_cursor = snapshot?.body.pagination.next_cursor;
      }
      assert.deepEqual(live, snapshot, query);
    }
  });
});

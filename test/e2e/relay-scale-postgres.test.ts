// Two `ambit relay serve` processes from one config over one PostgreSQL database: snapshots of a table and of a
// query answer the same bytes under the same ETags in both, each accepts the other's cursors (also through rows
// with equal values, NULLs, numerics and timestamps), and cursors of another entity, query or key are refused.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PEOPLE } from '../relay/postgres-fixture.ts';
import { type Answer, call, type Served } from './relay-scale-fixture.ts';
import { AGGREGATE, RECORDS, usePostgresScale } from './relay-scale-postgres-fixture.ts';

const read = (relay: Served, path: string, headers: Record<string, string> = {}) =>
  call(`${relay.url}${path}`, { as: 'reader', headers });

function page(answer: Answer): { ids: string[]; cursor: string | undefined } {
  assert.equal(answer.status, 200, answer.body.slice(0, 300));
  const body = JSON.parse(answer.body);
  return {
    ids: body.data.map((row: { person_id: string }) => row.person_id),
    cursor: body.pagination.next_cursor,
  };
}

function problemCode(answer: Answer): string {
  assert.equal(answer.status, 400, answer.body.slice(0, 300));
  return JSON.parse(answer.body).code;
}

// Filters through equal values (household), NULLs (age, note), numerics (income) and timestamps.
const QUERIES = [
  'limit=5',
  'household.in=5000000001,5000000004&limit=2',
  'age.gte=10&limit=3',
  'income.between=5000,20000&limit=2',
  'registered_at.gte=2024-01-01T05:00:00.000Z&limit=4',
  'updated_local.lte=2023-06-20T08:00:00Z&limit=3',
  'active=false&limit=2',
  'note.gte=note&fields=person_id,note,income,registered_at&limit=3',
];

describe('two relay processes over one PostgreSQL database', () => {
  const scale = usePostgresScale();
  let relays: [Served, Served];
  before(async () => {
    relays = [await scale.serve(), await scale.serve()];
  });

  it('answer the same bytes under the same ETag, for a table and a query snapshot alike', async () => {
    for (const entity of ['people', 'people_query']) {
      for (const query of [...QUERIES, '']) {
        const path = `${RECORDS(entity)}?${query}`;
        const [a, b] = await Promise.all(relays.map((relay) => read(relay, path)));
        assert.equal(a?.status, 200, `${path}: ${a?.body}`);
        assert.match(String(a?.headers.etag), /^"sha256:[0-9a-f]{64}"$/);
        assert.equal(a?.headers.etag, b?.headers.etag, path);
        assert.equal(a?.body, b?.body, path);
        assert.equal((await read(relays[1], path, { 'if-none-match': String(a?.headers.etag) })).status, 304);
      }
    }
    // The query's rows are the table's rows: the same pages.
    const table = await read(relays[0], `${RECORDS('people')}?limit=100`);
    assert.equal(table.body, (await read(relays[1], `${RECORDS('people_query')}?limit=100`)).body);
    assert.equal(page(table).ids.length, PEOPLE.length);
  });

  it('walk every query to its end alternating processes, each continuing the other cursor', async () => {
    for (const entity of ['people', 'people_query']) {
      for (const query of QUERIES) {
        const whole = page(
          await read(relays[0], `${RECORDS(entity)}?${query.replace(/limit=\d+/, 'limit=100')}`),
        );
        const ids: string[] = [];
        let cursor: string | undefined;
        let turn = 0;
        do {
          const relay = relays[turn++ % 2] as Served;
          const next = page(
            await read(
              relay,
              `${RECORDS(entity)}?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            ),
          );
          ids.push(...next.ids);
          cursor = next.cursor;
        } while (cursor !== undefined);
        assert.deepEqual(ids, whole.ids, `${entity}?${query}`);
        assert.ok(ids.length > 0, query);
      }
    }
  });

  it('refuse a cursor on another entity, another filter set or another projection', async () => {
    const first = page(await read(relays[0], `${RECORDS('people')}?household=5000000001&limit=1`));
    const cursor = encodeURIComponent(String(first.cursor));
    for (const path of [
      `${RECORDS('people_query')}?household=5000000001&limit=1&cursor=${cursor}`,
      `${RECORDS('people')}?household=5000000002&limit=1&cursor=${cursor}`,
      `${RECORDS('people')}?limit=1&cursor=${cursor}`,
      `${RECORDS('people')}?household=5000000001&active=true&limit=1&cursor=${cursor}`,
      `${RECORDS('people')}?household=5000000001&fields=person_id&limit=1&cursor=${cursor}`,
      `${RECORDS('events')}?limit=1&cursor=${cursor}`,
    ]) {
      assert.equal(problemCode(await read(relays[1], path)), 'pagination.cursor_invalidated', path);
    }
    // The same query in another order, and another limit, continue it.
    const next = page(
      await read(relays[1], `${RECORDS('people')}?limit=3&household=5000000001&cursor=${cursor}`),
    );
    assert.deepEqual(
      next.ids,
      PEOPLE.filter((p) => p.household === 5000000001)
        .map((p) => p.person_id)
        .slice(1, 4),
    );
  });

  it('share cursors with a process of another audit secret, refuse those of another cursor secret', async () => {
    const path = `${RECORDS('people')}?limit=2`;
    const first = page(await read(relays[0], path));
    const next = `${path}&cursor=${encodeURIComponent(String(first.cursor))}`;
    const sameKey = await scale.serve([], { AUDIT_SECRET: 'another-audit-secret-0123456789abcdef01' });
    assert.deepEqual(page(await read(sameKey, next)).ids, ['p003', 'p004']);
    const otherKey = await scale.serve([], { CURSOR_SECRET: 'another-cursor-secret-0123456789abcdef0' });
    assert.equal(problemCode(await read(otherKey, next)), 'pagination.cursor_malformed');
    // The secret signs cursors, it does not version data: an answer without a cursor has the same ETag there, but a
    // page holds a next_cursor that process refuses, so it does not answer that page's tag 304.
    const etag = String((await read(relays[0], path)).headers.etag);
    assert.equal((await read(otherKey, path, { 'if-none-match': etag })).status, 200);
    const record = `${RECORDS('people')}/p001`;
    const recordTag = String((await read(relays[0], record)).headers.etag);
    assert.equal((await read(otherKey, record, { 'if-none-match': recordTag })).status, 304);
  });

  it('tag an aggregate over the snapshot alike, each answering the other tag 304', async () => {
    for (const query of ['', '?max_rows=2', '?f=csv']) {
      const [a, b] = await Promise.all(relays.map((relay) => read(relay, `${AGGREGATE}${query}`)));
      assert.equal(a?.status, 200, a?.body);
      assert.equal(b?.status, 200, b?.body);
      if (query !== '?f=csv')
        assert.deepEqual(JSON.parse(String(a?.body)).observations, JSON.parse(String(b?.body)).observations);
      assert.equal(a?.headers.etag, b?.headers.etag, query);
      for (const [relay, etag] of [
        [relays[1], a?.headers.etag],
        [relays[0], b?.headers.etag],
      ] as const) {
        assert.equal(
          (await read(relay, `${AGGREGATE}${query}`, { 'if-none-match': String(etag) })).status,
          304,
        );
      }
    }
  });
});

// Two `ambit relay serve` processes from one config over one PostgreSQL database, while the data changes: a live
// walk continued by the other process misses no row present throughout and repeats none while rows are inserted
// and deleted; after a reload in one process only, a cursor or ETag of the other generation is never taken for
// this one; and `--workers 2` agrees with itself over the shared port.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type Answer, call, type Served } from './relay-scale-fixture.ts';
import { AGGREGATE, EVENT_IDS, RECORDS, usePostgresScale } from './relay-scale-postgres-fixture.ts';

const read = (relay: Served, path: string, headers: Record<string, string> = {}) =>
  call(`${relay.url}${path}`, { as: 'reader', headers });

function page<T>(answer: Answer, key: string): { ids: T[]; cursor: string | undefined } {
  assert.equal(answer.status, 200, answer.body.slice(0, 300));
  const body = JSON.parse(answer.body);
  return {
    ids: body.data.map((row: Record<string, T>) => row[key]),
    cursor: body.pagination.next_cursor,
  };
}

const withCursor = (path: string, cursor: string | undefined) =>
  cursor === undefined ? path : `${path}&cursor=${encodeURIComponent(cursor)}`;

/**
 * Walks `events` 5 rows a page, page k from `relays[k % relays.length]`; before each later page, inserts a row
 * behind the position and one ahead of it, and deletes one of each and the row the cursor names. Returns the ids
 * served, those present at the end and those inserted.
 */
async function liveWalk(
  relays: readonly Served[],
  db: { query(sql: string, params?: unknown[]): Promise<unknown> },
) {
  const present = new Set(EVENT_IDS);
  const inserted = new Set<number>();
  const served: number[] = [];
  let cursor: string | undefined;
  let turn = 0;
  do {
    const relay = relays[turn++ % relays.length] as Served;
    const next = page<number>(await read(relay, withCursor(`${RECORDS('events')}?limit=5`, cursor)), 'id');
    served.push(...next.ids);
    cursor = next.cursor;
    const last = served[served.length - 1] as number;
    // Odd ids fall between the rows; even ones are rows of the table.
    const changes: [string, number][] = [
      ['INSERT INTO events VALUES ($1::int, $1::int::text)', last - 3],
      ['INSERT INTO events VALUES ($1::int, $1::int::text)', last + 3],
      ['DELETE FROM events WHERE id = $1', last - 2],
      ['DELETE FROM events WHERE id = $1', last + 4],
      ['DELETE FROM events WHERE id = $1', last],
    ];
    for (const [sql, id] of changes) {
      if (id <= 0 || (sql.startsWith('INSERT') && present.has(id))) continue;
      await db.query(sql, [id]);
      if (sql.startsWith('INSERT')) {
        present.add(id);
        inserted.add(id);
      } else present.delete(id);
    }
  } while (cursor !== undefined);
  return { served, present, inserted };
}

describe('two relay processes over one PostgreSQL database, while it changes', () => {
  const scale = usePostgresScale();
  let relays: [Served, Served];
  before(async () => {
    relays = [await scale.serve(), await scale.serve()];
  });

  it('walk a live table across processes in key order, each row once, none skipped that stayed', async () => {
    const before = new Set(EVENT_IDS);
    const { served, present, inserted } = await liveWalk(relays, scale.db);
    assert.deepEqual(
      served,
      [...served].sort((a, b) => a - b),
      'key order',
    );
    assert.equal(new Set(served).size, served.length, 'no row twice');
    for (const id of before)
      if (present.has(id)) assert.ok(served.includes(id), `row ${id} stayed and was served`);
    // Rows inserted ahead of the position were reached; those behind it and those deleted ahead were not.
    assert.ok(served.some((id) => id % 2 === 1));
    for (const id of served) assert.ok(before.has(id) || inserted.has(id), `row ${id} was a row`);
  });

  it('after a reload in one process only, refuse the other generation cursors and never revalidate its tags', async () => {
    const [a, b] = relays;
    const path = `${RECORDS('people')}?limit=3`;
    const before = await read(b, path);
    const oldCursor = page<string>(before, 'person_id').cursor;
    const oldAggregate = await read(b, AGGREGATE);
    await scale.db.query("UPDATE people SET household = 5000000001, income = 1.5 WHERE person_id = 'p002'");
    const reload = await call(`${a.adminUrl}/admin/v1/reload`, { method: 'POST', as: 'operator' });
    assert.equal(reload.status, 200, reload.body);
    const after = await read(a, path);
    assert.notEqual(after.headers.etag, before.headers.etag);
    const newCursor = page<string>(after, 'person_id').cursor;
    for (const [relay, cursor] of [
      [a, oldCursor],
      [b, newCursor],
    ] as const) {
      const answer = await read(relay, withCursor(path, cursor));
      assert.equal(answer.status, 400, answer.body);
      assert.equal(JSON.parse(answer.body).code, 'pagination.cursor_invalidated');
    }
    for (const [relay, etag] of [
      [a, before.headers.etag],
      [b, after.headers.etag],
    ] as const) {
      assert.equal((await read(relay, path, { 'if-none-match': String(etag) })).status, 200);
    }
    const newAggregate = await read(a, AGGREGATE);
    assert.notEqual(newAggregate.headers.etag, oldAggregate.headers.etag);
    assert.equal(
      (await read(a, AGGREGATE, { 'if-none-match': String(oldAggregate.headers.etag) })).status,
      200,
    );
    assert.equal(
      (await read(b, AGGREGATE, { 'if-none-match': String(newAggregate.headers.etag) })).status,
      200,
    );
    // Once the other process reloads too, both agree again.
    assert.equal(
      (await call(`${b.adminUrl}/admin/v1/reload`, { method: 'POST', as: 'operator' })).status,
      200,
    );
    assert.equal((await read(b, path)).headers.etag, after.headers.etag);
    assert.deepEqual(page<string>(await read(b, withCursor(path, newCursor)), 'person_id').ids, [
      'p004',
      'p005',
      'p006',
    ]);
  });

  it('keep a live walk going across a reload of one process', async () => {
    const first = page<number>(await read(relays[0], `${RECORDS('events')}?limit=2`), 'id');
    assert.equal(
      (await call(`${relays[0].adminUrl}/admin/v1/reload`, { method: 'POST', as: 'operator' })).status,
      200,
    );
    const next = page<number>(
      await read(relays[1], withCursor(`${RECORDS('events')}?limit=2`, first.cursor)),
      'id',
    );
    assert.ok((next.ids[0] as number) > (first.ids[1] as number));
  });
});

describe('ambit relay serve --workers 2 over PostgreSQL', () => {
  const scale = usePostgresScale();
  let relay: Served;
  before(async () => {
    relay = await scale.serve(['--workers', '2']);
  });

  it('tags and pages snapshot reads alike whichever worker answers', async () => {
    for (const entity of ['people', 'people_query']) {
      const path = `${RECORDS(entity)}?household.in=5000000001,5000000002&limit=2`;
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await read(relay, path));
      assert.equal(new Set(answers.map((answer) => answer.headers.etag)).size, 1);
      assert.equal(new Set(answers.map((answer) => answer.body)).size, 1);
      assert.equal(
        (await read(relay, path, { 'if-none-match': String(answers[0]?.headers.etag) })).status,
        304,
      );
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const next = page<string>(await read(relay, withCursor(path, cursor)), 'person_id');
        ids.push(...next.ids);
        cursor = next.cursor;
      } while (cursor !== undefined);
      assert.equal(ids.length, 8);
      assert.deepEqual(ids, [...ids].sort());
    }
    const aggregates = [await read(relay, AGGREGATE), await read(relay, AGGREGATE)];
    assert.equal(aggregates[0]?.headers.etag, aggregates[1]?.headers.etag);
  });

  it('walks a live table through both workers, each row once, while it changes', async () => {
    const { served, present } = await liveWalk([relay], scale.db);
    assert.equal(new Set(served).size, served.length);
    assert.deepEqual(
      served,
      [...served].sort((a, b) => a - b),
    );
    for (const id of EVENT_IDS) if (present.has(id)) assert.ok(served.includes(id), `row ${id}`);
  });
});

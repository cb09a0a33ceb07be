// has_many relationship pages over many related rows: every walk and every cursor taken from the middle of one
// serves exactly the target's rows in primary-key order.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from './assert-problem.ts';
import {
  type FamilyRelay,
  KIDS,
  kidsCsv,
  kidsOf,
  PARENTS,
  parentsCsv,
  startFamilyRelay,
} from './family-fixture.ts';

const COUNT = 3000;

describe('has_many pages over many rows', () => {
  let family: FamilyRelay;
  before(async () => {
    family = await startFamilyRelay({ kids: COUNT });
  });
  after(() => family.close());

  async function page(path: string) {
    const response = await family.get(path);
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    return response.json() as {
      data: Record<string, unknown>[];
      pagination: { has_more: boolean; next_cursor?: string };
    };
  }

  async function walk(parent: string, limit: number, cursor?: string) {
    const rows: Record<string, unknown>[] = [];
    const cursors: string[] = [];
    let next = cursor;
    for (;;) {
      const body = await page(
        `${PARENTS}/${parent}/relationships/kids?limit=${limit}${next ? `&cursor=${next}` : ''}`,
      );
      rows.push(...body.data);
      if (!body.pagination.has_more) return { rows, cursors };
      next = body.pagination.next_cursor as string;
      cursors.push(next);
    }
  }

  it('walks every parent’s kids to the end, in primary-key order, whatever the page size', async () => {
    for (const parent of ['p0', 'p1', 'p2']) {
      const expected = kidsOf(parent, COUNT);
      assert.equal(expected.length, 1000);
      for (const limit of [50, 7]) {
        const { rows } = await walk(parent, limit);
        assert.deepEqual(rows, expected, `${parent} limit ${limit}`);
      }
    }
  });

  it('resumes from a cursor in the middle at the row after it, with any limit', async () => {
    const expected = kidsOf('p1', COUNT);
    const { cursors } = await walk('p1', 13);
    // After k pages of 13, the cursor points past the first 13k rows.
    for (const pages of [1, 38, Math.floor(cursors.length / 2), cursors.length - 1, cursors.length]) {
      const cursor = cursors[pages - 1] as string;
      const resumed = await page(`${PARENTS}/p1/relationships/kids?limit=11&cursor=${cursor}`);
      assert.deepEqual(resumed.data, expected.slice(13 * pages, 13 * pages + 11), `after ${pages} pages`);
      const rest = await walk('p1', 50, cursor);
      assert.deepEqual(rest.rows, expected.slice(13 * pages), `rest after ${pages} pages`);
    }
  });

  it('agrees with the filtered collection of the target', async () => {
    const fromCollection: Record<string, unknown>[] = [];
    let next: string | undefined;
    do {
      const body = await page(`${KIDS}?parent_id=p2&limit=100${next ? `&cursor=${next}` : ''}`);
      fromCollection.push(...body.data);
      next = body.pagination.next_cursor;
    } while (next !== undefined);
    assert.deepEqual((await walk('p2', 100)).rows, fromCollection);
  });
});

describe('relationship pages across reloads', () => {
  let family: FamilyRelay;
  before(async () => {
    family = await startFamilyRelay({ kids: 60 });
  });
  after(() => family.close());

  async function read(path: string, headers: Record<string, string> = {}) {
    const response = await family.get(path, 'reader', headers);
    return { response, body: response.statusCode === 200 ? response.json() : undefined };
  }

  it('keep cursors and ETags while the data is unchanged, and invalidate them when either end changes', async () => {
    const many = `${PARENTS}/p1/relationships/kids?limit=4`;
    const one = `${KIDS}/4/relationships/parent`;
    const first = await read(many);
    const cursor = first.body.pagination.next_cursor as string;
    const parent = await read(one);
    const etags = { many: String(first.response.headers.etag), one: String(parent.response.headers.etag) };

    // A reload of an unchanged file keeps the data version: cursors and validators stay good.
    assert.equal((await family.reload('kids_table')).statusCode, 200);
    assert.equal((await read(`${many}&cursor=${cursor}`)).response.statusCode, 200);
    assert.equal((await read(many, { 'if-none-match': etags.many })).response.statusCode, 304);
    assert.equal((await read(one, { 'if-none-match': etags.one })).response.statusCode, 304);

    for (const [file, table, text] of [
      ['kids.csv', 'kids_table', kidsCsv(60, '!')],
      ['parents.csv', 'parents_table', parentsCsv('!')],
    ] as const) {
      const before = await read(many);
      const beforeCursor = before.body.pagination.next_cursor as string;
      const beforeEtags = [
        String(before.response.headers.etag),
        String((await read(one)).response.headers.etag),
      ];
      family.write(file, text);
      assert.equal((await family.reload(table)).statusCode, 200);
      assertProblem(
        (await read(`${many}&cursor=${beforeCursor}`)).response,
        400,
        'pagination.cursor_invalidated',
      );
      const [manyAfter, oneAfter] = [
        await read(many, { 'if-none-match': beforeEtags[0] as string }),
        await read(one, { 'if-none-match': beforeEtags[1] as string }),
      ];
      assert.equal(manyAfter.response.statusCode, 200, `${file}: a has_many page after the reload`);
      assert.equal(oneAfter.response.statusCode, 200, `${file}: a belongs_to read after the reload`);
      assert.notEqual(manyAfter.response.headers.etag, beforeEtags[0]);
      assert.notEqual(oneAfter.response.headers.etag, beforeEtags[1]);
    }
    const { body } = await read(many);
    assert.deepEqual(body.data, kidsOf('p1', 60, '!').slice(0, 4));
    assert.deepEqual((await read(one)).body, { id: 'p1', name: 'Bob!' });
  });
});

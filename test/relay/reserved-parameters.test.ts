// The reserved parameters of rows reads (`limit`, `cursor`, `fields`, `expand`): sent once, without an operator,
// spelled as documented. `x` and `x.eq` are one parameter, so sending both is a repeat, on every route that takes x.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from './assert-problem.ts';
import { type FamilyRelay, KIDS, PARENTS, startFamilyRelay } from './family-fixture.ts';

const KIDS_OF_P1 = `${PARENTS}/p1/relationships/kids`;
const REPEATED = /is repeated/;

describe('reserved query parameters of rows reads', () => {
  let family: FamilyRelay;
  let parentsCursor: string;
  let kidsCursor: string;
  before(async () => {
    family = await startFamilyRelay();
    parentsCursor = encodeURIComponent(
      (await family.get(`${PARENTS}?limit=1`)).json().pagination.next_cursor,
    );
    kidsCursor = encodeURIComponent(
      (await family.get(`${KIDS_OF_P1}?limit=1`)).json().pagination.next_cursor,
    );
  });
  after(() => family.close());

  it('answer `x` sent with `x.eq` as the repeat it is, on every route that takes `x`', async () => {
    const cases = [
      `${PARENTS}?limit=1&limit.eq=2`,
      `${PARENTS}?limit.eq=2&limit=2`,
      `${PARENTS}?limit=1&cursor=${parentsCursor}&cursor.eq=${parentsCursor}`,
      `${PARENTS}?fields=id&fields.eq=name`,
      `${PARENTS}?expand=kids&expand.eq=kids`,
      `${PARENTS}/p1?fields=id&fields.eq=id`,
      `${PARENTS}/p1?expand=kids&expand.eq=kids`,
      `${KIDS_OF_P1}?limit=1&limit.eq=1`,
      `${KIDS_OF_P1}?cursor=${kidsCursor}&cursor.eq=${kidsCursor}`,
    ];
    for (const path of cases) assertProblem(await family.get(path), 400, 'filter.invalid_value', REPEATED);
  });

  it('refuse a repeated expansion before checking its target, as a twice-sent `expand` is', async () => {
    for (const query of ['expand=kids&expand=kids', 'expand=kids&expand.eq=kids']) {
      for (const path of [`${PARENTS}?${query}`, `${PARENTS}/p1?${query}`]) {
        assertProblem(await family.get(path, 'parents_only'), 400, 'filter.invalid_value', REPEATED);
      }
    }
  });

  it('take no operator: `limit.eq`, `fields.in`, `expand.gte`, `cursor.lte` are refused, never ignored', async () => {
    for (const query of [
      'limit.eq=1',
      'limit.in=1',
      'fields.in=id,name',
      'expand.gte=kids',
      'cursor.lte=x',
    ]) {
      const name = query.slice(0, query.indexOf('.'));
      assertProblem(
        await family.get(`${PARENTS}?${query}`),
        400,
        'filter.not_allowed',
        `\`${name}\` takes no operator`,
      );
      assertProblem(await family.get(`${PARENTS}/p1?${query}`), 400, 'filter.not_allowed');
      assertProblem(await family.get(`${KIDS_OF_P1}?${query}`), 400, 'filter.not_allowed');
    }
  });

  it('read `limit` as a plain decimal integer, leading zeros and all', async () => {
    for (const limit of ['2', '02', '000002', '0000002', `${'0'.repeat(40)}2`]) {
      const page = await family.get(`${PARENTS}?limit=${limit}`);
      assert.equal(page.statusCode, 200, `${limit}: ${page.body}`);
      assert.deepEqual(
        page.json().data.map((row: { id: string }) => row.id),
        ['p0', 'p1'],
        limit,
      );
      const kids = await family.get(`${KIDS_OF_P1}?limit=${limit}`);
      assert.equal(kids.json().data.length, 2, limit);
    }
    for (const limit of [
      '0',
      '000',
      '-1',
      '+5',
      '%2B5',
      '5.0',
      '1e2',
      '0x10',
      '%205',
      '5%20',
      '101',
      '0000101',
    ]) {
      for (const path of [`${PARENTS}?limit=${limit}`, `${KIDS_OF_P1}?limit=${limit}`]) {
        assertProblem(await family.get(path), 400, 'filter.limit_out_of_range');
      }
    }
  });

  it('match names exactly after percent-decoding: `%6Cimit` is `limit`, `Limit` is no parameter of a read', async () => {
    assert.equal((await family.get(`${PARENTS}?%6Cimit=1`)).json().data.length, 1);
    assert.equal((await family.get(`${KIDS_OF_P1}?%6Cimit=1`)).json().data.length, 1);
    assertProblem(await family.get(`${PARENTS}?%6Cimit=1&limit=2`), 400, 'filter.invalid_value', REPEATED);
    for (const name of ['Limit', 'LIMIT', 'Fields', 'EXPAND', 'Cursor', '%20limit']) {
      assertProblem(await family.get(`${PARENTS}?${name}=1`), 400, 'filter.not_allowed');
      assertProblem(await family.get(`${KIDS_OF_P1}?${name}=1`), 400, 'filter.not_allowed');
    }
    assertProblem(
      await family.get(`${KIDS}/1/relationships/parent?limit=1&limit.eq=1`),
      400,
      'filter.not_allowed',
    );
  });
});

// How relationship keys match: exactly as stored, typed by the field (`001` is `1` in an integer key), a null or
// dangling key answering 404 on the route and null in an expansion; and an answer depends on the column its key is
// read from, so a key served from another column gives another ETag.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from './assert-problem.ts';
import { type FamilyRelay, KIDS, PARENTS, startFamilyRelay } from './family-fixture.ts';

/** Kids gain an integer `elder_id` key into kids (relationship `elder`); parents a has_one to their kids; both expandable. */
const withElders = (text: string) => {
  const edits: [string, string][] = [
    [
      '            - { name: label, type: string }\n',
      '            - { name: label, type: string }\n            - { name: elder_id, type: integer }\n',
    ],
    [
      '          - { name: parent, kind: belongs_to, target: parents, foreign_key: parent_id }\n',
      '          - { name: parent, kind: belongs_to, target: parents, foreign_key: parent_id }\n          - { name: elder, kind: belongs_to, target: kids, foreign_key: elder_id }\n',
    ],
    [
      '          - { name: kids, kind: has_many, target: kids, foreign_key: parent_id }\n',
      '          - { name: kids, kind: has_many, target: kids, foreign_key: parent_id }\n          - { name: first_kid, kind: has_one, target: kids, foreign_key: parent_id }\n',
    ],
    ['allowed_expansions: [parent]', 'allowed_expansions: [parent, elder]'],
    ['allowed_expansions: [kids]', 'allowed_expansions: [kids, first_kid]'],
  ];
  for (const [from, to] of edits) {
    assert.ok(text.includes(from), from);
    text = text.replace(from, to);
  }
  return text;
};

/** Keys null, dangling, of another case, with a leading space and with leading zeros. */
const ELDERS_CSV = [
  'id,parent_id,label,elder_id',
  '1,p1,a,',
  '2,p1,b,001',
  '3,,c,2',
  '4,P1,d,99',
  '5, p1,e,7',
  '7,p9,g,1',
].join('\n');

const kid = (id: number, parent_id: string | null, label: string, elder_id: number | null) => ({
  id,
  parent_id,
  label,
  elder_id,
});

describe('relationship keys', () => {
  let family: FamilyRelay;
  before(async () => {
    family = await startFamilyRelay({ edit: withElders, files: { 'kids.csv': `${ELDERS_CSV}\n` } });
  });
  after(() => family.close());

  async function json(path: string) {
    const response = await family.get(path);
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    return response.json();
  }

  it('follow a belongs_to by the typed value of its key', async () => {
    assert.deepEqual(await json(`${KIDS}/2/relationships/elder`), kid(1, 'p1', 'a', null));
    assert.deepEqual(await json(`${KIDS}/002/relationships/elder`), kid(1, 'p1', 'a', null));
    assert.deepEqual(await json(`${KIDS}/3/relationships/elder`), kid(2, 'p1', 'b', 1));
    assert.deepEqual(await json(`${KIDS}/1/relationships/parent`), { id: 'p1', name: 'Bob' });
  });

  it('answer 404 for a null or dangling key, and a string key matches only exactly', async () => {
    for (const path of [
      `${KIDS}/1/relationships/elder`,
      `${KIDS}/4/relationships/elder`,
      `${KIDS}/3/relationships/parent`,
      `${KIDS}/4/relationships/parent`,
      `${KIDS}/5/relationships/parent`,
      `${KIDS}/7/relationships/parent`,
      `${PARENTS}/p0/relationships/first_kid`,
      `${PARENTS}/P1/relationships/kids`,
    ]) {
      assertProblem(await family.get(path), 404, 'schema.unknown_resource');
    }
  });

  it('embed null where the route answers 404', async () => {
    const { data } = await json(`${KIDS}?expand=parent,elder&fields=id`);
    assert.deepEqual(
      data.map((row: { id: number; parent: { id: string } | null; elder: { id: number } | null }) => [
        row.id,
        row.parent?.id ?? null,
        row.elder?.id ?? null,
      ]),
      [
        [1, 'p1', null],
        [2, 'p1', 1],
        [3, null, 2],
        [4, null, null],
        [5, null, 7],
        [7, null, 1],
      ],
    );
  });

  it('list under a has_many only the rows whose key equals the record’s, the first of them under a has_one', async () => {
    const many = await json(`${PARENTS}/p1/relationships/kids`);
    assert.deepEqual(many, {
      data: [kid(1, 'p1', 'a', null), kid(2, 'p1', 'b', 1)],
      pagination: { has_more: false },
    });
    assert.deepEqual(await json(`${PARENTS}/p1/relationships/first_kid`), kid(1, 'p1', 'a', null));
    const { data } = await json(`${PARENTS}?expand=kids,first_kid`);
    assert.deepEqual(
      data.map((row: { id: string; kids: { id: number }[]; first_kid: { id: number } | null }) => [
        row.id,
        row.kids.map((k) => k.id),
        row.first_kid?.id ?? null,
      ]),
      [
        ['p0', [], null],
        ['p1', [1, 2], 1],
        ['p2', [], null],
      ],
    );
  });
});

/** Kid 1 names parent p1 in `parent_id` and p2 in `label`. */
const KIDS_CSV = 'id,parent_id,label\n1,p1,p2\n';

/** The kids' `parent_id` field served from the `label` column: the same tables, another declaration. */
const keyFromLabel = (text: string) => {
  const kids = '      - name: kids\n        table: kids_table\n';
  assert.ok(text.includes(kids));
  return text.replace(
    kids,
    `${kids}        fields: [{ name: id }, { name: parent_id, from: label }, { name: label }]\n`,
  );
};

describe('relationship ETags and the column of the key', () => {
  let plain: FamilyRelay;
  let remapped: FamilyRelay;
  before(async () => {
    [plain, remapped] = await Promise.all([startFamilyRelay(), startFamilyRelay({ edit: keyFromLabel })]);
    for (const family of [plain, remapped]) {
      family.write('kids.csv', KIDS_CSV);
      assert.equal((await family.reload('kids_table')).statusCode, 200);
    }
  });
  after(() => Promise.all([plain.close(), remapped.close()]));

  for (const [kind, path, bodies] of [
    [
      'belongs_to',
      `${KIDS}/1/relationships/parent`,
      [
        { id: 'p1', name: 'Bob' },
        { id: 'p2', name: 'Cat' },
      ],
    ],
    [
      'has_many',
      `${PARENTS}/p2/relationships/kids`,
      [
        { data: [], pagination: { has_more: false } },
        { data: [{ id: 1, parent_id: 'p2', label: 'p2' }], pagination: { has_more: false } },
      ],
    ],
  ] as const) {
    it(`differ for a ${kind} read whose key is served from another column`, async () => {
      const mine = await plain.get(path);
      const theirs = await remapped.get(path);
      assert.deepEqual([mine.json(), theirs.json()], bodies);
      assert.notEqual(mine.headers.etag, theirs.headers.etag);
      const revalidated = await remapped.get(path, 'reader', { 'if-none-match': String(mine.headers.etag) });
      assert.equal(revalidated.statusCode, 200, 'a validator of the other declaration is not fresh');
      // Each relay still revalidates its own answer.
      const own = await remapped.get(path, 'reader', { 'if-none-match': String(theirs.headers.etag) });
      assert.equal(own.statusCode, 304);
    });
  }
});

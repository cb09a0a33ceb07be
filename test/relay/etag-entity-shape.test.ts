// An ETag stands for one body: with the same data, an entity declared differently (a field mapped to another
// column, a smaller expansion cap) renders other bytes, so its ETags must differ too; reads of entities the change
// does not touch keep theirs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

const SP = '/v1/datasets/social_protection/entities';
const HOUSEHOLDS = `${SP}/households/records`;
const PATHS = [
  `${HOUSEHOLDS}?limit=3`,
  `${HOUSEHOLDS}?limit=3&expand=members`,
  `${HOUSEHOLDS}/hh-1033`,
  `${HOUSEHOLDS}/hh-1033?expand=members`,
  `${HOUSEHOLDS}/hh-1033/relationships/members?limit=2`,
  `${HOUSEHOLDS}/hh-1033/relationships/payments`,
  `${SP}/members/records/mem-5001/relationships/household`,
  `${SP}/members/records?limit=3&expand=household`,
  `${SP}/payments/records/pay-7001`,
];

describe('ETags of entity reads under another entity declaration', () => {
  let relay: TestRelay;
  /** The households' head field served from another column of the same table. */
  let remapped: TestRelay;
  /** Members expanded into a household are cut at 2 instead of 25. */
  let capped: TestRelay;
  before(async () => {
    [relay, remapped, capped] = await Promise.all([
      startDemoRelay(),
      startDemoRelay({
        edit: (text) => text.replace('            from: head_person_id\n', '            from: district\n'),
      }),
      startDemoRelay({
        edit: (text) =>
          text.replace(
            'default_limit: 25\n          max_limit: 200\n          allowed_filters:\n            - { field: member_id',
            'default_limit: 2\n          max_limit: 200\n          allowed_filters:\n            - { field: member_id',
          ),
      }),
    ]);
  });
  after(() => Promise.all([relay, remapped, capped].map((r) => r.close())));

  it('differ wherever the body differs', async () => {
    for (const other of [remapped, capped]) {
      let changed = 0;
      for (const path of PATHS) {
        const mine = await relay.get(path, { as: 'caseworker' });
        const theirs = await other.get(path, { as: 'caseworker' });
        assert.equal(mine.statusCode, 200, `${path}: ${mine.body.slice(0, 200)}`);
        assert.equal(theirs.statusCode, 200, `${path}: ${theirs.body.slice(0, 200)}`);
        const sameBody = mine.body === theirs.body;
        if (!sameBody) changed++;
        if (!sameBody) {
          assert.notEqual(mine.headers.etag, theirs.headers.etag, path);
          const revalidated = await other.get(path, {
            as: 'caseworker',
            headers: { 'if-none-match': String(mine.headers.etag) },
          });
          assert.equal(revalidated.statusCode, 200, `${path}: a stale validator is not fresh`);
        }
      }
      assert.ok(changed >= 2, 'the declaration change shows in several answers');
    }
  });

  it('stay equal on reads that show nothing of the changed entity', async () => {
    for (const path of [`${SP}/payments/records/pay-7001`, `${HOUSEHOLDS}/hh-1033/relationships/payments`]) {
      const mine = await relay.get(path, { as: 'caseworker' });
      const theirs = await remapped.get(path, { as: 'caseworker' });
      assert.equal(mine.body, theirs.body, path);
      assert.equal(mine.headers.etag, theirs.headers.etag, path);
    }
  });
});

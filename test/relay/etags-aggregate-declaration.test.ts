// An aggregate answer is computed from the columns behind the entity fields it names: with the same data and the
// same aggregate declaration, an entity whose field is served from another column answers otherwise, so the ETag
// must differ (a client revalidating against a replica or a restarted relay must not be told its answer is
// current). A change the aggregate reads nothing of keeps the tag.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

const PAYMENTS_BY_DISTRICT = '/v1/datasets/social_protection/aggregates/payments_by_district';
const PATHS = [
  PAYMENTS_BY_DISTRICT,
  `${PAYMENTS_BY_DISTRICT}?f=csv`,
  `${PAYMENTS_BY_DISTRICT}?group_by=district,cycle&max_rows=50`,
];

const read = (relay: TestRelay, path: string, headers: Record<string, string> = {}) =>
  relay.inject({
    method: 'GET',
    url: path,
    headers: { authorization: `Bearer ${TEST_KEYS.analyst}`, ...headers },
  });

describe('aggregate ETags under another entity declaration', () => {
  let relay: TestRelay;
  /** The households' district field served from the municipality column (and the other way round). */
  let swapped: TestRelay;
  /** A households field the aggregate does not read, served from another column. */
  let unrelated: TestRelay;
  before(async () => {
    [relay, swapped, unrelated] = await Promise.all([
      startDemoRelay(),
      startDemoRelay({
        edit: (text) =>
          text.replace(
            '          - { name: district, concept_uri: demo:district }\n          - { name: municipality }\n',
            '          - { name: district, from: municipality, concept_uri: demo:district }\n' +
              '          - { name: municipality, from: district }\n',
          ),
      }),
      startDemoRelay({
        edit: (text) => text.replace('            from: head_person_id\n', '            from: district\n'),
      }),
    ]);
  });
  after(() => Promise.all([relay, swapped, unrelated].map((r) => r.close())));

  it('differ when the answer is read from other columns, and a stale tag is not answered 304', async () => {
    for (const path of PATHS) {
      const mine = await read(relay, path);
      const theirs = await read(swapped, path);
      assert.equal(mine.statusCode, 200, `${path}: ${mine.body.slice(0, 200)}`);
      assert.equal(theirs.statusCode, 200, `${path}: ${theirs.body.slice(0, 200)}`);
      assert.notEqual(theirs.body, mine.body, `${path}: the declaration change shows in the answer`);
      assert.notEqual(theirs.headers.etag, mine.headers.etag, path);
      const revalidated = await read(swapped, path, { 'if-none-match': String(mine.headers.etag) });
      assert.equal(revalidated.statusCode, 200, `${path}: a stale validator is not fresh`);
    }
  });

  it('stay equal when the change touches nothing the aggregate reads', async () => {
    for (const path of PATHS) {
      const mine = await read(relay, path);
      const theirs = await read(unrelated, path);
      assert.equal(theirs.body, mine.body, path);
      assert.equal(theirs.headers.etag, mine.headers.etag, path);
    }
  });
});

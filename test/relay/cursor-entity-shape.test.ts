// A cursor continues a walk only over the entity declaration that began it: with the same data, a field served
// from another column on a restarted relay or a replica would mix two meanings of one field in one walk. Cursors of
// entities the change does not touch keep working.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { withCursor } from './walk-pages.ts';

const SP = '/v1/datasets/social_protection/entities';
const HOUSEHOLDS = `${SP}/households/records`;
const MEMBERS = `${SP}/members/records`;
const PAYMENTS = `${SP}/payments/records`;

describe('cursors under another entity declaration', () => {
  let relay: TestRelay;
  /** The households' head field, and the members' person_id, served from other columns of the same tables. */
  let remapped: TestRelay;
  before(async () => {
    [relay, remapped] = await Promise.all([
      startDemoRelay(),
      startDemoRelay({
        edit: (text) =>
          text
            .replace('            from: head_person_id\n', '            from: district\n')
            .replace(
              '{ name: person_id, description: person_id in the civil registry. }',
              '{ name: person_id, from: role, description: person_id in the civil registry. }',
            ),
      }),
    ]);
  });
  after(() => Promise.all([relay, remapped].map((r) => r.close())));

  async function cursorOf(path: string): Promise<string> {
    const response = await relay.get(path, { as: 'caseworker' });
    assert.equal(response.statusCode, 200, response.body.slice(0, 200));
    const cursor = response.json().pagination.next_cursor;
    assert.equal(typeof cursor, 'string', path);
    return cursor;
  }

  it('are invalidated where the declaration of what the page shows changed', async () => {
    for (const path of [
      `${HOUSEHOLDS}?limit=3`,
      `${HOUSEHOLDS}?limit=3&fields=household_id,head_of_household_person_id`,
      `${PAYMENTS}?limit=3&expand=household`,
      `${MEMBERS}?limit=3`,
      `${HOUSEHOLDS}/hh-1033/relationships/members?limit=1`,
    ]) {
      const next = withCursor(path, await cursorOf(path));
      assertProblem(await remapped.get(next, { as: 'caseworker' }), 400, 'pagination.cursor_invalidated');
    }
  });

  it('still continue walks over entities the change does not touch', async () => {
    for (const path of [`${PAYMENTS}?limit=3`, `${HOUSEHOLDS}/hh-1033/relationships/payments?limit=1`]) {
      const next = withCursor(path, await cursorOf(path));
      const mine = await relay.get(next, { as: 'caseworker' });
      const theirs = await remapped.get(next, { as: 'caseworker' });
      assert.equal(theirs.statusCode, 200, `${path}: ${theirs.body.slice(0, 200)}`);
      assert.equal(theirs.body, mine.body, path);
    }
  });
});

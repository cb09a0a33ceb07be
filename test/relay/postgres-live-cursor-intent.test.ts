// A live table's cursors are bound to the filters as a set, as snapshot cursors are: the same filters in another
// order, or an `.in` listing its values in another order, continue the walk.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startPostgresRelay } from '../helpers/postgres-relay.ts';
import {
  ACCESS,
  PEOPLE,
  peopleApi,
  peopleSchema,
  postgresSource,
  usePeopleRelay,
} from './postgres-fixture.ts';

const LIVE = '/v1/datasets/registry/entities/people_live/records';

const DATASETS = `  - id: registry
    title: Registry
    tables:
      - id: people_live
        ${postgresSource({ table: 'people' })}
        materialization: live${peopleSchema()}
    entities:
      - name: people_live
        table: people_live
        ${ACCESS}
        ${peopleApi()}`;

describe('live cursors and the order of the filters', () => {
  const people = usePeopleRelay(DATASETS);

  async function ids(path: string) {
    const response = await people.relay.get(path);
    assert.equal(response.statusCode, 200, `${path}: ${response.body}`);
    const body = response.json();
    return {
      ids: body.data.map((row: { person_id: string }) => row.person_id),
      cursor: body.pagination.next_cursor,
    };
  }

  it('continue the same query sent in another order', async () => {
    const households = [5_000_000_000, 5_000_000_002];
    const expected = PEOPLE.filter((p) => p.active && households.includes(p.household)).map(
      (p) => p.person_id,
    );
    assert.ok(expected.length > 2, 'the query spans pages');
    const first = await ids(`${LIVE}?household.in=5000000000,5000000002&active=true&limit=1`);
    assert.deepEqual(first.ids, expected.slice(0, 1));
    const cursor = encodeURIComponent(first.cursor);
    const next = await ids(`${LIVE}?active=true&household.in=5000000002,5000000000&limit=1&cursor=${cursor}`);
    assert.deepEqual(next.ids, expected.slice(1, 2));
  });

  it('answer pagination.cursor_invalidated on a relay that serves a field from another column', async () => {
    // Same table, same secret, same query: only the entity's `age` and `household` now read each other's column.
    // Continuing would mix two meanings of each (and of a filter on them) in one walk.
    const remapped = DATASETS.replace(
      `        ${ACCESS}`,
      `        fields:
          - { name: person_id }
          - { name: household, from: age }
          - { name: age, from: household }
          - { name: income }
          - { name: born }
          - { name: registered_at }
          - { name: updated_local }
          - { name: active }
          - { name: note }
        ${ACCESS}`,
    );
    const other = await startPostgresRelay(remapped, people.db.url);
    try {
      const first = await ids(`${LIVE}?active=true&limit=1`);
      const cursor = encodeURIComponent(first.cursor);
      const same = await people.relay.get(`${LIVE}?active=true&limit=1&cursor=${cursor}`);
      assert.equal(same.statusCode, 200, same.body);
      const refused = await other.get(`${LIVE}?active=true&limit=1&cursor=${cursor}`);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(refused.json().code, 'pagination.cursor_invalidated');
    } finally {
      await other.close();
    }
  });
});

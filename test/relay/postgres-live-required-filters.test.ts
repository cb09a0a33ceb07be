// Required filters and the purpose header on an entity over a live PostgreSQL table: the rules of snapshot entities,
// with no spelling of a filter, read by id, HEAD request or cursor that lists rows without the equality.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { READER_KEY } from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import {
  ACCESS,
  PEOPLE,
  peopleApi,
  peopleSchema,
  postgresSource,
  usePeopleRelay,
} from './postgres-fixture.ts';

const LIVE = '/v1/datasets/registry/entities/people_live/records';
const PURPOSE = { 'data-purpose': 'https://registry.example.org/purpose/case-review' };
const HOUSEHOLD = 5_000_000_000;

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
        ${peopleApi().replace(
          'default_limit: 50',
          'default_limit: 50\n          require_purpose_header: true\n          required_filters: [household, note]',
        )}`;

describe('required filters and purpose on a live entity', () => {
  const people = usePeopleRelay(DATASETS);
  const read = (path: string, headers: Record<string, string> = PURPOSE) => people.relay.get(path, headers);

  it('answers only an equality on a required field: no list, range, blank or repeated value', async () => {
    for (const query of [
      '',
      `?household.in=${HOUSEHOLD},${HOUSEHOLD + 1}`,
      `?household.in=${HOUSEHOLD}`,
      '?household.gte=0',
      `?household.between=0,${HOUSEHOLD * 2}`,
      '?note.in=note%201',
      '?active=true&limit=1000',
    ]) {
      assertProblem(await read(`${LIVE}${query}`), 400, 'entity.filter_required');
    }
    for (const query of [
      '?household=',
      '?note=%20%20',
      `?household=${HOUSEHOLD}&household=${HOUSEHOLD + 1}`,
    ]) {
      assertProblem(await read(`${LIVE}${query}`), 400, 'filter.invalid_value');
    }
    const found = await read(`${LIVE}?household.eq=${HOUSEHOLD}&limit=1000`);
    assert.equal(found.statusCode, 200, found.body);
    assert.deepEqual(
      found.json().data.map((row: { person_id: string }) => row.person_id),
      PEOPLE.filter((person) => person.household === HOUSEHOLD).map((person) => person.person_id),
    );
  });

  it('refuses a read by id when the key is not a required filter, and every read without a purpose', async () => {
    assertProblem(await read(`${LIVE}/p001`), 400, 'entity.filter_required');
    assertProblem(await read(`${LIVE}?household=${HOUSEHOLD}`, {}), 400, 'auth.purpose_required');
    assertProblem(await read(`${LIVE}/p001`, { 'data-purpose': '  ' }), 400, 'auth.purpose_required');
    const head = await people.relay.relay.app.inject({
      method: 'HEAD',
      url: `${LIVE}?household.in=${HOUSEHOLD}`,
      headers: { authorization: `Bearer ${READER_KEY}`, ...PURPOSE },
    });
    assert.equal(head.statusCode, 400);
    assert.equal(head.body, '');
  });

  it('continues a walk only with the filter value and purpose its cursor was issued for', async () => {
    const first = await read(`${LIVE}?household=${HOUSEHOLD}&limit=1`);
    assert.equal(first.statusCode, 200, first.body);
    const cursor = encodeURIComponent(first.json().pagination.next_cursor);
    for (const query of [`household=${HOUSEHOLD + 1}`, `household=${HOUSEHOLD}&note.in=note%206`]) {
      assertProblem(
        await read(`${LIVE}?${query}&limit=1&cursor=${cursor}`),
        400,
        'pagination.cursor_invalidated',
      );
    }
    for (const query of ['', `household.in=${HOUSEHOLD}&`]) {
      assertProblem(await read(`${LIVE}?${query}limit=1&cursor=${cursor}`), 400, 'entity.filter_required');
    }
    assertProblem(
      await read(`${LIVE}?household=${HOUSEHOLD}&limit=1&cursor=${cursor}`, {
        'data-purpose': 'https://registry.example.org/purpose/other',
      }),
      400,
      'pagination.cursor_invalidated',
    );
    const next = await read(`${LIVE}?household=${HOUSEHOLD}&limit=1&cursor=${cursor}`);
    assert.equal(next.statusCode, 200, next.body);
    assert.equal(next.json().data[0].household, HOUSEHOLD);
  });
});

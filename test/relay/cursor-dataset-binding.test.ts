// Two datasets declaring the same table over the same file, with entities of the same name: their tables have the
// same version, so only the dataset tells their cursors apart. A cursor read in one must not page the other.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from './assert-problem.ts';
import { type CsvRelay, csvRelayHead, startCsvRelay } from './csv-relay-fixture.ts';

const dataset = (id: string) => `  - id: ${id}
    title: ${id}
    sensitivity: internal
    tables:
      - id: people_t
        source: { type: file, path: people.csv }
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: name, type: string }
    entities:
      - name: people
        table: people_t
`;

const CONFIG = `${csvRelayHead(['north:rows', 'south:rows'])}datasets:
${dataset('north')}${dataset('south')}`;

const PEOPLE = `id,name\n${Array.from({ length: 6 }, (_, k) => `${k + 1},p${k + 1}`).join('\n')}\n`;
const NORTH = '/v1/datasets/north/entities/people/records';
const SOUTH = '/v1/datasets/south/entities/people/records';

describe('cursors of an entity of the same name and data in another dataset', () => {
  let relay: CsvRelay;
  before(async () => {
    relay = await startCsvRelay(CONFIG, { 'people.csv': PEOPLE });
  });
  after(() => relay.close());

  it('are refused there, though they continue the walk they came from', async () => {
    const first = await relay.get(`${NORTH}?limit=2`);
    assert.equal(first.statusCode, 200, first.body);
    const cursor = first.json().pagination.next_cursor;
    const next = await relay.get(`${NORTH}?limit=2&cursor=${cursor}`);
    assert.equal(next.statusCode, 200, next.body);
    assert.deepEqual(
      next.json().data.map((row: { id: number }) => row.id),
      [3, 4],
    );
    assertProblem(await relay.get(`${SOUTH}?limit=2&cursor=${cursor}`), 400, 'pagination.cursor_invalidated');
  });

  it('make the same rows another page, with another ETag', async () => {
    const north = await relay.get(`${NORTH}?limit=2`);
    const south = await relay.get(`${SOUTH}?limit=2`);
    assert.deepEqual(south.json().data, north.json().data);
    assert.notEqual(south.json().pagination.next_cursor, north.json().pagination.next_cursor);
    assert.notEqual(south.headers.etag, north.headers.etag);
  });
});

// Batches and coalesced single evaluations over a live PostgreSQL table whose lookup values differ only by case,
// Unicode normalization, leading zeros or surrounding spaces, or hold quotes and backslashes: every subject gets
// what its single evaluation gets, never the record of a value next to it in the same `.in` read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Answer, answerOf, target, useLiveBulkReads } from './live-bulk-reads-fixture.ts';

/** Held, each with whether the person is deceased: one alive, the next not, so a borrowed record shows. */
const HELD = [
  'ab-1',
  'AB-1',
  'Jos\u00e9',
  'Ame\u0301lie',
  '007',
  'a"b',
  'c\\d',
  'x\\,y',
  "o'k",
  'S\u00f8ren',
];
/** Asked besides: other spellings of a value held, and values no row holds. */
const OTHERS = [
  'Ab-1',
  'Jose\u0301',
  'Am\u00e9lie',
  '7',
  '07',
  ' 007',
  '007 ',
  'a\\"b',
  'c\\\\d',
  'Soren',
  '"a"',
];

describe('bulk reads of lookup values that differ only in spelling', () => {
  const reads = useLiveBulkReads('alive_by_spelling', async (db) => {
    await db.query(
      'CREATE TABLE persons (id integer PRIMARY KEY, national_id text, deceased boolean NOT NULL)',
    );
    for (const [index, id] of HELD.entries())
      await db.query('INSERT INTO persons VALUES ($1, $2, $3)', [index + 1, id, index % 2 === 1]);
  });
  const values = [...HELD, ...OTHERS, ...HELD];

  it('answers every item of a batch, a subject listed twice included, as its single evaluation', async () => {
    const batched = await reads.batch(values);
    const singles: Answer[] = [];
    for (const value of values) singles.push(await reads.alone(value));
    assert.deepEqual(batched, singles);
    // Each value held is found as itself: alive or not as its own row says.
    assert.deepEqual(
      singles.slice(0, HELD.length),
      HELD.map((_, index): Answer => ['succeeded', index % 2 === 0]),
    );
  });

  it('answers concurrent single evaluations read together as each alone', async () => {
    const together = await Promise.all(
      values.map(async (value) => {
        const response = await reads.coalescing.evaluate({
          target: target(value),
          claims: ['alive_by_spelling'],
        });
        return answerOf(response.statusCode, response.body);
      }),
    );
    const singles: Answer[] = [];
    for (const value of values) singles.push(await reads.alone(value));
    assert.deepEqual(together, singles);
  });
});

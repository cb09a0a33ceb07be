import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Column } from './column.ts';
import { digestColumns } from './digest-columns.ts';

/** One text column `note` of the given values. */
function notes(values: (string | null)[]): Map<string, Column> {
  return new Map<string, Column>([['note', { kind: 'text', type: 'string', values }]]);
}

/** `count` filler values, then `tail`: the tail starts at row `count`. */
function rows(count: number, tail: string[]): string[] {
  return [...Array.from({ length: count }, (_, i) => `row ${i}`), ...tail];
}

describe('digestColumns', () => {
  it('gives equal data equal digests', async () => {
    assert.equal(await digestColumns(notes(['a', null, 'b'])), await digestColumns(notes(['a', null, 'b'])));
  });

  it('keeps the digest every earlier release computed: relays of two releases agree on versions and ETags', async () => {
    const columns = new Map<string, Column>([
      [
        'note',
        {
          kind: 'text',
          type: 'string',
          values: Array.from({ length: 70_000 }, (_, i) => (i % 7 === 0 ? null : `v${i}`)),
        },
      ],
      [
        'n',
        {
          kind: 'numeric',
          type: 'number',
          values: new Float64Array([1.5, 2, 0]),
          nulls: new Uint8Array([0, 0, 1]),
        },
      ],
      ['b', { kind: 'boolean', type: 'boolean', values: new Uint8Array([1, 0, 2]) }],
    ]);
    assert.equal(
      await digestColumns(columns),
      '3da527ac7db5ecf5773472b713c04f285c69ff7a113afcd6c31b02f88ed2960f',
    );
  });

  it('lets the event loop run while it hashes a large table (a reload under load does not stall reads)', async () => {
    let turns = 0;
    const tick = setInterval(() => {
      turns += 1;
    }, 0);
    try {
      await digestColumns(notes(rows(300_000, [])));
    } finally {
      clearInterval(tick);
    }
    // Hashed in one go, no timer could fire before the digest was done.
    assert.ok(turns > 0, 'no timer ran while the digest was computed');
  });

  it('tells apart text columns that differ only in where two neighbouring values split', async () => {
    assert.notEqual(await digestColumns(notes(['x', 'yz'])), await digestColumns(notes(['xy', 'z'])));
    // Rows 65,535 and 65,536 sit on either side of a boundary of the digest's internal chunks: the split between
    // them must still count, or a snapshot whose text moved from one row to the next would look unchanged (and a
    // reload would keep serving the old rows under the same version).
    for (const before of [65_535, 2 * 65_536 - 1]) {
      const edited = await digestColumns(notes(rows(before, ['x', 'yz'])));
      const original = await digestColumns(notes(rows(before, ['xy', 'z'])));
      assert.notEqual(edited, original, `split after row ${before}`);
    }
  });

  it('tells apart a null from an empty place in the text', async () => {
    assert.notEqual(await digestColumns(notes(['a', null])), await digestColumns(notes([null, 'a'])));
  });
});

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
  it('gives equal data equal digests', () => {
    assert.equal(digestColumns(notes(['a', null, 'b'])), digestColumns(notes(['a', null, 'b'])));
  });

  it('tells apart text columns that differ only in where two neighbouring values split', () => {
    assert.notEqual(digestColumns(notes(['x', 'yz'])), digestColumns(notes(['xy', 'z'])));
    // Rows 65,535 and 65,536 sit on either side of a boundary of the digest's internal chunks: the split between
    // them must still count, or a snapshot whose text moved from one row to the next would look unchanged (and a
    // reload would keep serving the old rows under the same version).
    for (const before of [65_535, 2 * 65_536 - 1]) {
      const edited = digestColumns(notes(rows(before, ['x', 'yz'])));
      const original = digestColumns(notes(rows(before, ['xy', 'z'])));
      assert.notEqual(edited, original, `split after row ${before}`);
    }
  });

  it('tells apart a null from an empty place in the text', () => {
    assert.notEqual(digestColumns(notes(['a', null])), digestColumns(notes([null, 'a'])));
  });
});

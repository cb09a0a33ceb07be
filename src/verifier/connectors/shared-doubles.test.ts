import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sharedDoubles } from './shared-doubles.ts';

describe('shared doubles', () => {
  it('finds different numbers of a list that read as one double', () => {
    assert.deepEqual(
      [...sharedDoubles(['9007199254740992', '9007199254740993', '0.1', '0.10000000000000000001', 'A-1'])],
      [9007199254740992, 0.1],
    );
    assert.deepEqual([...sharedDoubles(['1e400', '2e400'])], [Number.POSITIVE_INFINITY]);
  });

  it('takes every spelling of one number as that number, and text as no number', () => {
    const spellings = [
      '7',
      '007',
      '7.0',
      '+7',
      '7e0',
      '0.7e1',
      '70e-1',
      '0',
      '-0',
      '0.000',
      '.5',
      '0.50',
      '5e-1',
    ];
    assert.deepEqual([...sharedDoubles([...spellings, '1.', '1', 'abc', '', '.', 'e5', '0x10', '16'])], []);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MissedReloads } from './missed-reloads.ts';

const table = (tableId: string) => ({ op: 'reload-table', datasetId: 'd', tableId }) as const;

describe('MissedReloads', () => {
  it('gives each loading worker the reloads asked meanwhile, once', () => {
    const missed = new MissedReloads();
    missed.note([1, 3], table('a'));
    missed.note([3], table('b'));
    missed.note([3], table('a'));
    assert.deepEqual(missed.take(1), [table('a')]);
    assert.deepEqual(missed.take(3), [table('a'), table('b')]);
    assert.deepEqual(missed.take(3), []);
    assert.deepEqual(missed.take(2), []);
  });

  it('folds table reloads into a reload of every table', () => {
    const missed = new MissedReloads();
    missed.note([1], table('a'));
    missed.note([1], { op: 'reload-all' });
    missed.note([1], table('b'));
    assert.deepEqual(missed.take(1), [{ op: 'reload-all' }]);
  });

  it('forgets the reloads of a worker whose process exited', () => {
    const missed = new MissedReloads();
    missed.note([1], { op: 'reload-all' });
    missed.forget(1);
    assert.deepEqual(missed.take(1), []);
  });
});

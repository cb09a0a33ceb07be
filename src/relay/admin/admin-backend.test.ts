import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReloadOutcome } from '../reload/reloader.ts';
import { combineOutcomes } from './admin-backend.ts';

describe('combineOutcomes with a worker still in its first load', () => {
  const ok: ReloadOutcome = {
    ok: true,
    counts: { total: 2, succeeded: 2, failed: 0 },
    failures: [],
    generation: 'g1',
  };
  const wait = { dataset_id: 'd', table_id: 't', code: 'ingest.source_unavailable' };
  const starting = (waiting: ReloadOutcome['failures']): ReloadOutcome => ({
    ok: false,
    counts: { total: 2, succeeded: 0, failed: 0 },
    failures: [],
    generation: undefined,
    firstLoadRunning: { waiting },
  });

  it('says the reload was refused, naming each waiting table once, whatever the other workers did', () => {
    const combined = combineOutcomes([ok, starting([wait]), starting([wait])]);
    assert.equal(combined.ok, false);
    assert.deepEqual(combined.firstLoadRunning, { waiting: [wait] });
  });

  it('says so when the first load is merely not over (nothing waits for a database)', () => {
    assert.deepEqual(combineOutcomes([starting([]), ok]).firstLoadRunning, { waiting: [] });
  });

  it('leaves it out when every worker ran the reload', () => {
    assert.equal('firstLoadRunning' in combineOutcomes([ok, ok]), false);
  });
});

describe('combineOutcomes of a reload that failed in some workers only', () => {
  const ok: ReloadOutcome = {
    ok: true,
    counts: { total: 1, succeeded: 1, failed: 0 },
    failures: [],
    generation: 'g2',
  };
  const failed: ReloadOutcome = {
    ok: false,
    counts: { total: 1, succeeded: 0, failed: 1 },
    failures: [{ dataset_id: 'd', table_id: 't', code: 'ingest.file_changed' }],
    generation: 'g1',
  };

  it('reports the split: the processes that failed keep the previous data, the others serve the new', () => {
    const combined = combineOutcomes([ok, failed, ok]);
    assert.equal(combined.ok, false);
    assert.deepEqual(combined.splitProcesses, { failed: 1, total: 3 });
    assert.equal(combined.generation, undefined);
  });

  it('reports no split when every process failed, or none did', () => {
    assert.equal('splitProcesses' in combineOutcomes([failed, failed]), false);
    assert.equal('splitProcesses' in combineOutcomes([ok, ok]), false);
  });
});

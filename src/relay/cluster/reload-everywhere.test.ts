import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReloadOutcome } from '../reload/reloader.ts';
import { reloadEverywhere } from './reload-everywhere.ts';

const ok: ReloadOutcome = {
  ok: true,
  counts: { total: 1, succeeded: 1, failed: 0 },
  failures: [],
  generation: 'new',
};
const failed: ReloadOutcome = {
  ok: false,
  counts: { total: 1, succeeded: 0, failed: 1 },
  failures: [{ dataset_id: 'd', table_id: 't', code: 'ingest.file_changed' }],
  generation: 'old',
};

/** A reload that swapped in `version` of table d/t. */
const okWith = (version: string): ReloadOutcome => ({
  ...ok,
  generation: version,
  versions: [{ dataset_id: 'd', table_id: 't', version }],
});

/** Workers answering their scripted outcomes in turn; every request is recorded. */
function scripted(scripts: Record<string, ReloadOutcome[]>) {
  const asked: string[] = [];
  const reload = async (worker: string) => {
    asked.push(worker);
    const next = scripts[worker]?.shift();
    if (next === undefined) throw new Error(`${worker} did not answer`);
    return next;
  };
  return { asked, reload };
}

describe('reloadEverywhere', () => {
  it('asks a worker whose load failed once more when the others swapped, and reports success when it converges', async () => {
    const { asked, reload } = scripted({ a: [ok], b: [failed, ok] });
    const outcome = await reloadEverywhere(['a', 'b'], reload);
    assert.deepEqual(asked, ['a', 'b', 'b']);
    assert.equal(outcome.ok, true);
    assert.equal(outcome.generation, 'new');
  });

  it('reports the split when the second attempt fails too', async () => {
    const { asked, reload } = scripted({ a: [ok], b: [failed, failed], c: [ok] });
    const outcome = await reloadEverywhere(['a', 'b', 'c'], reload);
    assert.deepEqual(asked, ['a', 'b', 'c', 'b']);
    assert.equal(outcome.ok, false);
    assert.deepEqual(outcome.splitProcesses, { failed: 1, total: 3 });
  });

  it('asks nothing again when every worker failed alike (the processes still agree)', async () => {
    const { asked, reload } = scripted({ a: [failed], b: [failed] });
    const outcome = await reloadEverywhere(['a', 'b'], reload);
    assert.deepEqual(asked, ['a', 'b']);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.splitProcesses, undefined);
  });

  it('leaves out a worker that does not answer, and fails when none does', async () => {
    const { reload } = scripted({ a: [ok] });
    assert.equal((await reloadEverywhere(['a', 'gone'], reload)).ok, true);
    await assert.rejects(reloadEverywhere(['gone'], scripted({}).reload), /no worker answered/);
  });

  it('asks every worker once more when each loaded other data of a table (a source written meanwhile)', async () => {
    const { asked, reload } = scripted({ a: [okWith('v1'), okWith('v2')], b: [okWith('v2'), okWith('v2')] });
    const outcome = await reloadEverywhere(['a', 'b'], reload);
    assert.deepEqual(asked, ['a', 'b', 'a', 'b']);
    assert.equal(outcome.ok, true);
    assert.equal(outcome.generation, 'v2');
    assert.equal(outcome.differing, undefined);
  });

  it('reports the tables whose data still differs between workers after the second attempt', async () => {
    const { asked, reload } = scripted({ a: [okWith('v1'), okWith('v3')], b: [okWith('v2'), okWith('v4')] });
    const outcome = await reloadEverywhere(['a', 'b'], reload);
    assert.deepEqual(asked, ['a', 'b', 'a', 'b']);
    assert.equal(outcome.ok, true);
    assert.deepEqual(outcome.differing, [{ dataset_id: 'd', table_id: 't' }]);
  });

  it('asks nothing again when every worker loaded the same data', async () => {
    const { asked, reload } = scripted({ a: [okWith('v1')], b: [okWith('v1')] });
    const outcome = await reloadEverywhere(['a', 'b'], reload);
    assert.deepEqual(asked, ['a', 'b']);
    assert.equal(outcome.differing, undefined);
  });
});

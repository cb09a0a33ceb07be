// A reload of every table reads the data at the moment its generation began (PostgreSQL's shared snapshot): the
// change token it records must be no newer than that moment, or a change committed just after it is recorded as
// loaded while the data lacks it, and every later poll skips it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oneTableReloader, stubSnapshot } from './one-table-reloader-test-support.ts';

/** One mtime table over a fake database whose data a generation reads at the moment it began. */
function sharedMomentTable() {
  const db = { version: 'a', writeAfterExport: undefined as string | undefined, ended: 0 };
  let moment: string | undefined;
  const { reloader, state } = oneTableReloader({
    loadTable: async () => stubSnapshot(moment ?? db.version),
    async beginGeneration() {
      moment = db.version;
      // A transaction committed right after the export: the generation's reads do not see it.
      if (db.writeAfterExport !== undefined) db.version = db.writeAfterExport;
      return {
        async end() {
          moment = undefined;
          db.ended += 1;
        },
      };
    },
    changeToken: () => ({ changeToken: async () => db.version }),
  });
  const served = () => state.generation?.tables.get('d/t')?.version;
  return { reloader, db, served };
}

describe('a reload of every table read at one shared moment', () => {
  it('leaves a change committed after that moment to the next poll', async () => {
    const { reloader, db, served } = sharedMomentTable();
    await reloader.load();
    db.writeAfterExport = 'b';
    const outcome = await reloader.reloadAll('admin');
    assert.equal(outcome.ok, true);
    assert.equal(db.ended, 1, 'the shared moment ended with the reload');
    assert.equal(served(), 'a', 'the data of the moment the reload began');
    db.writeAfterExport = undefined;
    // The next poll reads token `b`: the data served lacks it, so it is not confirmed and the table loads.
    assert.equal(reloader.confirmUnchanged('d', 't', 'b', 0), false);
    await reloader.reloadTable('d', 't', 'mtime', { token: 'b', readAt: 0 });
    assert.equal(served(), 'b');
  });
});

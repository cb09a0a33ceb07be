// An mtime poll that finds a change while another load of the same table runs waits its turn; by then that load
// has read the change, so the table is not loaded a second time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../platform/log.ts';
import { CLOCK, ONE_MTIME_TABLE, oneTableReloader, stubSnapshot } from './one-table-reloader-test-support.ts';
import { createRefreshScheduler } from './refresh-scheduler.ts';
import type { Reloader } from './reloader.ts';

/** One mtime table whose token the test sets; loads wait while `hold` is set, and say when they start. */
function polledTable() {
  const source = { token: 'a', loads: 0 };
  let hold: Promise<void> | undefined;
  let release = () => {};
  let loadStarted = () => {};
  const tokens = { changeToken: async () => source.token };
  const { reloader } = oneTableReloader({
    loadTable: async () => {
      source.loads += 1;
      const version = source.token;
      loadStarted();
      await hold;
      return stubSnapshot(version);
    },
    changeToken: () => tokens,
  });
  // The scheduler's reloader, which says when a poll has asked for a reload.
  let pollAsked = () => {};
  const watched: Reloader = {
    ...reloader,
    reloadTable(...args: Parameters<Reloader['reloadTable']>) {
      const running = reloader.reloadTable(...args);
      pollAsked();
      return running;
    },
  };
  const refresh = createRefreshScheduler({
    config: ONE_MTIME_TABLE,
    reloader: watched,
    logger: silentLogger(),
    clock: CLOCK,
    changeToken: () => tokens,
    every: () => () => {},
  });
  return {
    reloader,
    refresh,
    source,
    /** Loads from now on wait for `release`; resolves once one has started. */
    holdLoads(): Promise<void> {
      hold = new Promise((resolve) => {
        release = resolve;
      });
      return new Promise((resolve) => {
        loadStarted = resolve;
      });
    },
    release: () => release(),
    pollAsked: () =>
      new Promise<void>((resolve) => {
        pollAsked = resolve;
      }),
  };
}

describe('an mtime poll made while a reload of its table runs', () => {
  it('does not load the table again once that reload has read the change it found', async () => {
    const table = polledTable();
    await table.reloader.load();
    assert.equal(table.source.loads, 1);
    table.source.token = 'b';
    const started = table.holdLoads();
    const admin = table.reloader.reloadTable('d', 't', 'admin');
    await started;
    const asked = table.pollAsked();
    const poll = table.refresh.runOnce();
    await asked;
    table.release();
    assert.equal((await admin).ok, true);
    await poll;
    assert.equal(table.source.loads, 2, 'the startup load and the admin reload, nothing more');
  });

  it('loads the table when the source changed again after that reload read it', async () => {
    const table = polledTable();
    await table.reloader.load();
    table.source.token = 'b';
    const started = table.holdLoads();
    const admin = table.reloader.reloadTable('d', 't', 'admin');
    await started;
    table.source.token = 'c';
    const asked = table.pollAsked();
    const poll = table.refresh.runOnce();
    await asked;
    table.release();
    await admin;
    await poll;
    assert.equal(table.source.loads, 3);
    assert.equal(table.reloader.confirmUnchanged('d', 't', 'c', 0), true, 'the poll loaded the newer data');
  });
});

describe('an mtime reload that waited its turn behind another load', () => {
  it('loads nothing when its source started changing again meanwhile (a rewrite in place begun)', async () => {
    const source = { token: 'a', loads: 0 };
    // `writing`: a file modified moments ago, which may be half written.
    const tokens = {
      changeToken: async () => source.token,
      settling: (token: string) => token === 'writing',
    };
    let release = () => {};
    let started = () => {};
    let hold: Promise<void> | undefined;
    const { reloader, state } = oneTableReloader({
      loadTable: async () => {
        source.loads += 1;
        const version = source.token;
        started();
        await hold;
        return stubSnapshot(version);
      },
      changeToken: () => tokens,
    });
    await reloader.load();
    source.token = 'b';
    hold = new Promise((resolve) => {
      release = resolve;
    });
    const adminStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const admin = reloader.reloadTable('d', 't', 'admin');
    await adminStarted;
    // A poll finds the file written out and still, and asks for a reload, which waits for the admin one.
    source.token = 'c';
    const polled = reloader.reloadTable('d', 't', 'mtime', { token: 'c', readAt: 0 });
    // Meanwhile the writer starts writing the file again, in place.
    source.token = 'writing';
    hold = undefined;
    release();
    await admin;
    assert.equal((await polled).ok, true);
    assert.equal(source.loads, 2, 'the startup load and the admin reload, nothing more');
    assert.equal(state.generation?.table('d', 't').version, 'b', 'no half-written file is served');
    // The next polls read the file again: once it holds still, it loads.
    assert.equal(reloader.confirmUnchanged('d', 't', 'writing', 0), false);
  });
});

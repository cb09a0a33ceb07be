import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../platform/log.ts';
import type { RelayConfig } from '../config/schema.ts';
import { createRefreshScheduler, type Every } from './refresh-scheduler.ts';
import type { Reloader } from './reloader.ts';

/** One dataset with one table reloaded on an interval; `reloadTable` finishes when the test says so. */
function scheduler() {
  const ticks: (() => void)[] = [];
  const every: Every = (_ms, run) => {
    ticks.push(run);
    return () => ticks.splice(ticks.indexOf(run), 1);
  };
  let finish: () => void = () => {};
  let reloads = 0;
  const reloader = {
    reloadTable: () => {
      reloads += 1;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    },
    lastToken: () => undefined,
  } as unknown as Reloader;
  const config = {
    datasets: [
      { id: 'd', defaults: {}, tables: [{ id: 't', refresh: { mode: 'interval', interval: 1000 } }] },
    ],
  } as unknown as RelayConfig;
  const refresh = createRefreshScheduler({
    config,
    reloader,
    logger: silentLogger(),
    changeToken: () => undefined,
    every,
  });
  return { refresh, ticks, finish: () => finish(), reloads: () => reloads };
}

describe('refresh scheduler', () => {
  it('stop waits for the reload running now, and no tick runs after it', async () => {
    const { refresh, ticks, finish, reloads } = scheduler();
    refresh.start();
    assert.equal(ticks.length, 1);
    ticks[0]?.();
    assert.equal(reloads(), 1);
    let stopped = false;
    const stopping = refresh.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stopped, false, 'the running reload has not finished');
    assert.equal(ticks.length, 0, 'the timer is cancelled');
    finish();
    await stopping;
    assert.equal(stopped, true);
    assert.equal(reloads(), 1);
  });

  it('stop with nothing running resolves at once', async () => {
    const { refresh } = scheduler();
    refresh.start();
    await refresh.stop();
  });
});

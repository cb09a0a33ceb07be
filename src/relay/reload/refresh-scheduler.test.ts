import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { createLogger, silentLogger } from '../../platform/log.ts';
import type { RelayConfig } from '../config/schema.ts';
import { type ChangeTokenSource, fileChangeToken } from './change-token.ts';
import { createRefreshScheduler, type Every } from './refresh-scheduler.ts';
import type { Reloader } from './reloader.ts';

/** One dataset with one table reloaded on an interval. */
const INTERVAL_CONFIG = {
  datasets: [{ id: 'd', defaults: {}, tables: [{ id: 't', refresh: { mode: 'interval', interval: 1000 } }] }],
} as unknown as RelayConfig;

/** The interval table's scheduler; `reloadTable` finishes when the test says so. */
function scheduler() {
  const ticks: (() => void)[] = [];
  const every: Every = (_ms, run) => {
    ticks.push(run);
    return () => ticks.splice(ticks.indexOf(run), 1);
  };
  let finish: (outcome?: unknown) => void = () => {};
  let reloads = 0;
  const reloader = {
    reloadTable: () => {
      reloads += 1;
      return new Promise<unknown>((resolve) => {
        finish = resolve;
      });
    },
    confirmUnchanged: () => false,
    readMark: () => 0,
  } as unknown as Reloader;
  const refresh = createRefreshScheduler({
    config: INTERVAL_CONFIG,
    reloader,
    logger: silentLogger(),
    clock: systemClock,
    changeToken: () => undefined,
    every,
  });
  return { refresh, ticks, finish: (outcome?: unknown) => finish(outcome), reloads: () => reloads };
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

  it('an interval tick skips a file modified moments ago (it may be half written) and loads it at the next', async () => {
    let reloads = 0;
    let settling = true;
    const reloader = {
      reloadTable: async () => {
        reloads += 1;
      },
      confirmUnchanged: () => false,
      readMark: () => 0,
    } as unknown as Reloader;
    const withSource = (source: ChangeTokenSource) =>
      createRefreshScheduler({
        config: INTERVAL_CONFIG,
        reloader,
        logger: silentLogger(),
        clock: systemClock,
        changeToken: () => undefined,
        settleToken: () => source,
      });
    const file = withSource({ changeToken: async () => 'token', settling: () => settling });
    await file.runOnce();
    assert.equal(reloads, 0, 'still being written: not read');
    settling = false;
    await file.runOnce();
    assert.equal(reloads, 1, 'held still: read');
    // A source that cannot tell (no settling) is read at every tick, as before.
    await withSource({ changeToken: async () => 'token' }).runOnce();
    assert.equal(reloads, 2);
  });

  it('an interval tick reads a file whose modification time is in the future once it held still for a tick', async (t) => {
    // A file copied with its times kept from a machine whose clock is ahead (or written before the clock was set
    // back) looks "just modified" until the clock catches up: it must not go unread for hours.
    const dir = mkdtempSync(join(tmpdir(), 'ambit-refresh-future-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'people.csv');
    writeFileSync(path, 'id\n1\n');
    const ahead = new Date(Date.now() + 3_600_000);
    utimesSync(path, ahead, ahead);
    let reloads = 0;
    const reloader = {
      reloadTable: async () => {
        reloads += 1;
      },
      confirmUnchanged: () => false,
      readMark: () => 0,
    } as unknown as Reloader;
    const every = (interval: number) =>
      createRefreshScheduler({
        config: {
          datasets: [
            { id: 'd', defaults: {}, tables: [{ id: 't', refresh: { mode: 'interval', interval } }] },
          ],
        } as unknown as RelayConfig,
        reloader,
        logger: silentLogger(),
        clock: systemClock,
        changeToken: () => undefined,
        settleToken: () => fileChangeToken(path),
      });
    const minutely = every(60_000);
    await minutely.runOnce();
    assert.equal(reloads, 0, 'first seen: it may still be being written');
    await minutely.runOnce();
    assert.equal(reloads, 1, 'unchanged for a tick longer than the settle window: read');
    await minutely.runOnce();
    assert.equal(reloads, 2, 'an interval table reloads at every tick');
    // Ticks shorter than the settle window: it has to hold still for as many as make up the window.
    const secondly = every(1_000);
    await secondly.runOnce();
    await secondly.runOnce();
    assert.equal(reloads, 2, 'unchanged for one second only');
    await secondly.runOnce();
    assert.equal(reloads, 3);
  });

  it('stop with nothing running resolves at once', async () => {
    const { refresh, ticks, reloads } = scheduler();
    refresh.start();
    assert.equal(ticks.length, 1);
    await refresh.stop();
    assert.equal(ticks.length, 0, 'the timer is cancelled');
    assert.equal(reloads(), 0, 'stopping starts no reload');
  });
});

describe('mtime refresh with a change token that cannot be read', () => {
  function unreadable() {
    const lines: Record<string, unknown>[] = [];
    const destination = { write: (line: string) => lines.push(JSON.parse(line)) };
    const logger = createLogger({ name: 't', destination: destination as unknown as NodeJS.WritableStream });
    let recorded: string | undefined;
    let reloads = 0;
    const reloader = {
      // A load that succeeds records the token read before it, as the reloader does.
      reloadTable: async () => {
        reloads += 1;
        recorded = 'unavailable:ingest.query_failed';
      },
      confirmUnchanged: (_dataset: string, _table: string, token: string) => token === recorded,
      readMark: () => 0,
    } as unknown as Reloader;
    const config = {
      datasets: [
        { id: 'd', defaults: {}, tables: [{ id: 't', refresh: { mode: 'mtime', interval: 1000 } }] },
      ],
    } as unknown as RelayConfig;
    let readable = false;
    const tokens: ChangeTokenSource = {
      changeToken: () =>
        readable
          ? Promise.resolve('token-1')
          : Promise.reject(Object.assign(new Error('permission denied'), { code: 'ingest.query_failed' })),
    };
    const refresh = createRefreshScheduler({
      config,
      reloader,
      logger,
      clock: systemClock,
      changeToken: () => tokens,
    });
    return {
      refresh,
      lines,
      reloads: () => reloads,
      readAgain: () => {
        readable = true;
      },
    };
  }

  it('warns once that changes are not seen, naming the table and the code', async () => {
    const { refresh, lines, reloads } = unreadable();
    for (let round = 0; round < 3; round++) await refresh.runOnce();
    assert.equal(reloads(), 1, 'an unreadable token counts as a change once');
    const warnings = lines.filter((line) => line.level === 40);
    assert.equal(warnings.length, 1, JSON.stringify(lines));
    assert.equal(warnings[0]?.dataset_id, 'd');
    assert.equal(warnings[0]?.table_id, 't');
    assert.equal(warnings[0]?.err_code, 'ingest.query_failed');
    assert.doesNotMatch(JSON.stringify(warnings), /permission denied/);
  });

  it('says once, at info, that the token reads again', async () => {
    const { refresh, lines, readAgain } = unreadable();
    for (let round = 0; round < 2; round++) await refresh.runOnce();
    readAgain();
    for (let round = 0; round < 2; round++) await refresh.runOnce();
    const messages = lines.map((line) => `${line.level} ${line.msg}`);
    assert.deepEqual(
      messages.filter((message) => /change token/.test(message)),
      [
        '40 change token unreadable: once a load succeeds, changes to this source go unseen until the token reads again',
        '30 change token readable again: changes to this source are seen',
      ],
    );
    const recovered = lines.find((line) => line.level === 30);
    assert.equal(recovered?.dataset_id, 'd');
    assert.equal(recovered?.table_id, 't');
  });

  it('runTable runs one round of a table after the one running now and answers its outcome', async () => {
    const { refresh, ticks, finish, reloads } = scheduler();
    refresh.start();
    ticks[0]?.();
    const round = refresh.runTable('d', 't');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(reloads(), 1, 'the round waits for the tick running now');
    finish();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(reloads(), 2);
    const outcome = { ok: true, changed: true };
    finish(outcome);
    assert.equal(await round, outcome);
    // Not scheduled (manual, or no such table): nothing runs.
    assert.equal(await refresh.runTable('d', 'other'), undefined);
    assert.equal(reloads(), 2);
    await refresh.stop();
  });
});

// Tables read from one file and refreshed on an interval: each round loads the file's tables once, however many
// of them have a timer of their own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../platform/log.ts';
import type { RelayConfig } from '../config/schema.ts';
import { createRelayMetrics } from '../metrics/relay-metrics.ts';
import type { RelayState } from '../relay-state.ts';
import { SourceError } from '../sources/source-error.ts';
import { CLOCK, stubSnapshot } from './one-table-reloader-test-support.ts';
import { createRefreshScheduler } from './refresh-scheduler.ts';
import { createReloader } from './reloader.ts';

/** Three sheets of one workbook, each reloaded every minute. */
const CONFIG = {
  datasets: [
    {
      id: 'd',
      defaults: { refresh: { mode: 'interval', interval: 60_000 } },
      tables: ['households', 'members', 'visits'].map((id) => ({
        id,
        source: { type: 'file', path: 'book.xlsx' },
      })),
    },
  ],
} as unknown as RelayConfig;

function workbook() {
  const loads: string[] = [];
  const failing = new Set<string>();
  let file = 'v1';
  const state: RelayState = { generation: undefined, readiness: { total: 3, loaded: 0, failed: 0 } };
  const reloader = createReloader({
    config: CONFIG,
    state,
    clock: CLOCK,
    logger: silentLogger(),
    metrics: createRelayMetrics(CONFIG),
    loadTable: async (_dataset, table) => {
      loads.push(table.id);
      if (failing.has(table.id))
        throw new SourceError({ tableId: table.id, code: 'ingest.parse_error', detail: 'torn' });
      return stubSnapshot(file);
    },
    changeToken: () => undefined,
    fileToken: () => ({ changeToken: async () => `token-${file}` }),
  });
  const refresh = createRefreshScheduler({
    config: CONFIG,
    reloader,
    logger: silentLogger(),
    clock: CLOCK,
    changeToken: () => undefined,
    every: () => () => {},
  });
  const version = (table: string) => state.generation?.table('d', table).version;
  return {
    reloader,
    refresh,
    loads,
    failing,
    version,
    write: (text: string) => {
      file = text;
    },
  };
}

const count = (loads: readonly string[], table: string) => loads.filter((id) => id === table).length;

describe('an interval round of tables read from one file', () => {
  it('loads each of them once, not once per table whose timer fired', async () => {
    const book = workbook();
    await book.reloader.load();
    book.loads.length = 0;
    book.write('v2');
    await book.refresh.runOnce();
    for (const table of ['households', 'members', 'visits']) {
      assert.equal(count(book.loads, table), 1, `${table} loaded once in the round`);
      assert.equal(book.version(table), 'v2');
    }
    // The next round reloads them again, changed or not: that is what an interval refresh does.
    book.loads.length = 0;
    await book.refresh.runOnce();
    assert.deepEqual([...book.loads].sort(), ['households', 'members', 'visits']);
  });

  it('loads them again in the same round when the load that read them failed', async () => {
    const book = workbook();
    await book.reloader.load();
    book.loads.length = 0;
    book.write('v2');
    book.failing.add('members');
    await book.refresh.runOnce();
    assert.equal(count(book.loads, 'households'), 3, 'each timer tries the failed file again');
    assert.equal(book.version('households'), 'v1', 'nothing swapped in');
  });

  it('loads a table an operator reloaded alone since the round began with the rest of its file', async () => {
    const book = workbook();
    await book.reloader.load();
    book.loads.length = 0;
    book.write('v2');
    const asked = book.reloader.readMark();
    await book.reloader.reloadTable('d', 'members', 'admin');
    assert.equal(book.version('members'), 'v2');
    book.loads.length = 0;
    // Only members was read since the mark: its round still loads the other sheets with it.
    const outcome = await book.reloader.reloadTable('d', 'members', 'interval', undefined, asked);
    assert.equal(outcome.ok, true);
    assert.deepEqual([...book.loads].sort(), ['households', 'members', 'visits']);
  });
});

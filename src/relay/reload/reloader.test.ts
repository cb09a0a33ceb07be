import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { fixedClock } from '../../platform/clock.ts';
import { createLogger, silentLogger } from '../../platform/log.ts';
import { renderPrometheus } from '../../platform/metrics/render-prometheus.ts';
import type { RelayConfig } from '../config/schema.ts';
import { createRelayMetrics } from '../metrics/relay-metrics.ts';
import type { RelayState } from '../relay-state.ts';
import type { TableSnapshot } from '../store/table-snapshot.ts';
import { createReloader } from './reloader.ts';

/** One snapshot table whose change token the test sets; a token of `undefined` cannot be read. */
function reloaderWithToken() {
  const config = {
    datasets: [{ id: 'd', defaults: {}, tables: [{ id: 't', source: { type: 'file' } }] }],
  } as unknown as RelayConfig;
  const state: RelayState = { generation: undefined, readiness: { total: 1, loaded: 0, failed: 0 } };
  const clock = fixedClock('2026-01-01T00:00:00Z');
  const metrics = createRelayMetrics(config);
  let token: string | undefined;
  const reloader = createReloader({
    config,
    state,
    clock,
    logger: silentLogger(),
    metrics,
    loadTable: async () => ({ rowCount: 1, version: 'v1' }) as unknown as TableSnapshot,
    changeToken: () => ({
      changeToken: () =>
        token === undefined
          ? Promise.reject(Object.assign(new Error('denied'), { code: 'ingest.query_failed' }))
          : Promise.resolve(token),
    }),
  });
  const currentSeconds = async () => {
    const text = await renderPrometheus([metrics.families(state)]);
    const line = text.split('\n').find((l) => l.startsWith('ambit_relay_source_current_timestamp_seconds{'));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return {
    reloader,
    clock,
    currentSeconds,
    setToken: (value: string | undefined) => {
      token = value;
    },
  };
}

const start = Date.parse('2026-01-01T00:00:00Z') / 1000;

describe('reloader: confirming that the data served is current', () => {
  it('confirms a token equal to the one read before the load, and moves the current time', async () => {
    const { reloader, clock, currentSeconds, setToken } = reloaderWithToken();
    setToken('a');
    await reloader.load();
    assert.equal(await currentSeconds(), start);
    clock.advance(5_000);
    assert.equal(reloader.confirmUnchanged('d', 't', 'a', clock.now()), true);
    assert.equal(await currentSeconds(), start + 5);
    assert.equal(reloader.confirmUnchanged('d', 't', 'b', clock.now() + 1_000), false, 'a new token');
    assert.equal(await currentSeconds(), start + 5);
    assert.equal(reloader.confirmUnchanged('d', 'other', 'a', clock.now()), false, 'no such table');
  });

  it('skips the reload for a token that stays unreadable, but does not call the data current', async () => {
    const { reloader, clock, currentSeconds, setToken } = reloaderWithToken();
    setToken(undefined);
    await reloader.load();
    assert.equal(await currentSeconds(), start, 'the load itself read the data');
    clock.advance(5_000);
    const standIn = 'unavailable:ingest.query_failed';
    assert.equal(reloader.confirmUnchanged('d', 't', standIn, clock.now()), true);
    assert.equal(await currentSeconds(), start);
  });
});

describe('reloader: what a load logs', () => {
  it('logs the rows of a snapshot table, and no row count for a live one (reads go to the database)', async () => {
    const config = {
      datasets: [
        {
          id: 'd',
          defaults: {},
          tables: [
            { id: 'snap', source: { type: 'postgres' }, materialization: 'snapshot' },
            { id: 'live', source: { type: 'postgres' }, materialization: 'live' },
          ],
        },
      ],
    } as unknown as RelayConfig;
    const state: RelayState = { generation: undefined, readiness: { total: 2, loaded: 0, failed: 0 } };
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const reloader = createReloader({
      config,
      state,
      clock: fixedClock('2026-01-01T00:00:00Z'),
      logger: createLogger({ name: 'test', destination }),
      metrics: createRelayMetrics(config),
      // A live table's snapshot holds no rows, whatever the database holds.
      loadTable: async (_dataset, table) =>
        ({ rowCount: table.id === 'live' ? 0 : 3, version: `v-${table.id}` }) as unknown as TableSnapshot,
      changeToken: () => undefined,
    });
    await reloader.load();
    const loaded = lines.filter((line) => line.msg === 'table loaded');
    const snap = loaded.find((line) => line.table_id === 'snap');
    const live = loaded.find((line) => line.table_id === 'live');
    assert.equal(snap?.rows, 3);
    assert.ok(live, 'the live table is logged as loaded');
    assert.equal('rows' in live, false, 'no row count that reads as an empty table');
    assert.equal(live.materialization, 'live');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capturedLog } from '../../../test/helpers/captured-log.ts';
import { fixedClock } from '../../platform/clock.ts';
import { silentLogger } from '../../platform/log.ts';
import { renderPrometheus } from '../../platform/metrics/render-prometheus.ts';
import type { RelayConfig } from '../config/schema.ts';
import { createRelayMetrics } from '../metrics/relay-metrics.ts';
import type { RelayState } from '../relay-state.ts';
import type { IngestCode } from '../sources/ingest-codes.ts';
import { SourceError } from '../sources/source-error.ts';
import { stubSnapshot } from './one-table-reloader-test-support.ts';
import { createReloader } from './reloader.ts';

/** One snapshot table whose change token the test sets; a token of `undefined` cannot be read. */
function reloaderWithToken() {
  const config = {
    datasets: [{ id: 'd', defaults: {}, tables: [{ id: 't', source: { type: 'file', path: 't.csv' } }] }],
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
    loadTable: async () => stubSnapshot('v1'),
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
    const log = capturedLog();
    const reloader = createReloader({
      config,
      state,
      clock: fixedClock('2026-01-01T00:00:00Z'),
      logger: log.logger,
      metrics: createRelayMetrics(config),
      // A live table's snapshot holds no rows, whatever the database holds.
      loadTable: async (_dataset, table) => stubSnapshot(`v-${table.id}`, table.id === 'live' ? 0 : 3),
      changeToken: () => undefined,
    });
    await reloader.load();
    const loaded = log.records().filter((line) => line.msg === 'table loaded');
    const snap = loaded.find((line) => line.table_id === 'snap');
    const live = loaded.find((line) => line.table_id === 'live');
    assert.equal(snap?.rows, 3);
    assert.ok(live, 'the live table is logged as loaded');
    assert.equal('rows' in live, false, 'no row count that reads as an empty table');
    assert.equal(live.materialization, 'live');
  });
});

/**
 * One table (`live` makes it a live table) whose loads give `version` or, when `failure` is set, fail with it; the
 * log lines written at debug and above.
 */
function loggedReloader(options: { live?: boolean } = {}) {
  const config = {
    datasets: [
      {
        id: 'd',
        defaults: {},
        tables: [
          {
            id: 't',
            source: { type: 'postgres' },
            materialization: options.live === true ? 'live' : 'snapshot',
          },
        ],
      },
    ],
  } as unknown as RelayConfig;
  const state: RelayState = { generation: undefined, readiness: { total: 1, loaded: 0, failed: 0 } };
  const log = capturedLog('debug');
  const source = { version: 'v1', failure: undefined as IngestCode | undefined };
  const reloader = createReloader({
    config,
    state,
    clock: fixedClock('2026-01-01T00:00:00Z'),
    logger: log.logger,
    metrics: createRelayMetrics(config),
    loadTable: async (_dataset, table) => {
      if (source.failure !== undefined) {
        throw new SourceError({ tableId: table.id, code: source.failure, detail: 'refused' });
      }
      return stubSnapshot(source.version);
    },
    changeToken: () => undefined,
  });
  /** The level and message of each line logged since the last call. */
  let seen = 0;
  const logged = () => {
    const lines = log.records();
    const fresh = lines.slice(seen).map((line) => `${line.level} ${line.msg}`);
    seen = lines.length;
    return fresh;
  };
  return { reloader, source, logged, lines: () => log.records() };
}

const DEBUG = 20;
const INFO = 30;
const ERROR = 50;

describe('reloader: how loudly a reload is logged', () => {
  it('an automatic reload that changed nothing logs at debug; one that changed something, or an admin one, at info', async () => {
    const { reloader, source, logged, lines } = loggedReloader();
    await reloader.load();
    logged();
    await reloader.reloadTable('d', 't', 'interval');
    await reloader.reloadAll('interval');
    await reloader.reloadTable('d', 't', 'mtime');
    assert.deepEqual(logged(), Array(3).fill(`${DEBUG} reload applied`));
    assert.equal(lines().at(-1)?.changed, false);
    source.version = 'v2';
    await reloader.reloadTable('d', 't', 'interval');
    assert.deepEqual(logged(), [`${INFO} reload applied`]);
    assert.equal(lines().at(-1)?.changed, true);
    // An operator who asked for a reload hears of it, changed or not.
    await reloader.reloadTable('d', 't', 'admin');
    assert.deepEqual(logged(), [`${INFO} reload applied`]);
  });

  it('a reload that keeps failing the same way logs an error once, then debug, and info once it recovers', async () => {
    const { reloader, source, logged, lines } = loggedReloader();
    await reloader.load();
    logged();
    source.failure = 'ingest.source_unavailable';
    for (let poll = 0; poll < 3; poll++) await reloader.reloadTable('d', 't', 'mtime');
    const failed = 'reload failed: the previous data is still served';
    assert.deepEqual(logged(), [`${ERROR} ${failed}`, `${DEBUG} ${failed}`, `${DEBUG} ${failed}`]);
    // Another reason is news; so is a failure an operator asked for.
    source.failure = 'ingest.query_failed';
    await reloader.reloadTable('d', 't', 'interval');
    await reloader.reloadTable('d', 't', 'admin');
    await reloader.reloadTable('d', 't', 'interval');
    assert.deepEqual(logged(), [`${ERROR} ${failed}`, `${ERROR} ${failed}`, `${DEBUG} ${failed}`]);
    source.failure = undefined;
    await reloader.reloadTable('d', 't', 'mtime');
    assert.deepEqual(logged(), [`${INFO} reload recovered`, `${DEBUG} reload applied`]);
    await reloader.reloadTable('d', 't', 'mtime');
    assert.deepEqual(logged(), [`${DEBUG} reload applied`], 'recovered once');
    const recovered = lines().find((line) => line.msg === 'reload recovered');
    assert.equal(recovered?.dataset_id, 'd');
    assert.equal(recovered?.table_id, 't');
    assert.equal(recovered?.failed_reloads, 6);
    source.failure = 'ingest.source_unavailable';
    await reloader.reloadTable('d', 't', 'mtime');
    assert.deepEqual(logged(), [`${ERROR} ${failed}`], 'a new streak starts loud');
  });

  it('a live table whose check fails says live reads go on, not that previous data is served', async () => {
    const { reloader, source, logged } = loggedReloader({ live: true });
    await reloader.load();
    logged();
    source.failure = 'ingest.query_failed';
    await reloader.reloadTable('d', 't', 'admin');
    assert.deepEqual(logged(), [`${ERROR} reload failed: live reads continue against the database`]);
  });
});

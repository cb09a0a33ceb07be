// The relay's metric families: HTTP per route, readiness, source loads and reloads, live scans. Everything is a
// plain counter bumped where it happens and turned into families only on scrape.
import { createRouteMetrics, type RouteMetrics } from '../../platform/http/route-metrics.ts';
import {
  boundsMs,
  counterFamily,
  createHistogram,
  gaugeFamily,
  type Histogram,
  histogramFamily,
  histogramSamples,
  LATENCY_BUCKETS_SECONDS,
  type MetricFamily,
  type MetricSample,
  observe,
} from '../../platform/metrics/metric-family.ts';
import type { RelayConfig } from '../config/schema.ts';
import type { RelayState } from '../relay-state.ts';

export const METRIC_PREFIX = 'ambit_relay';

/** Source loads take longer than requests: seconds to minutes. */
const LOAD_BUCKETS_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const LOAD_BOUNDS = boundsMs(LOAD_BUCKETS_SECONDS);
const LATENCY_BOUNDS = boundsMs();

export type ReloadScope = 'all' | 'table';
/** What started a load: startup, an admin request, or the table's refresh mode. */
export type LoadTrigger = 'startup' | 'admin' | 'mtime' | 'interval';

/**
 * Every reload series that can move, declared at 0: a series born at 1 shows no increase to `rate()` or
 * `increase()`, so an alert on failed reloads would miss the first one. A table reload never runs at startup.
 */
const RELOAD_SERIES: readonly string[] = (['all', 'table'] as const).flatMap((scope) =>
  (['startup', 'admin', 'mtime', 'interval'] as const)
    .filter((trigger) => scope === 'all' || trigger !== 'startup')
    .flatMap((trigger) => [`${scope}|${trigger}|ok`, `${scope}|${trigger}|failed`]),
);

/**
 * The outcomes of a live scan, in the order they are reported. `row_invalid`: the database answered with a row that
 * does not fit the declared schema (a 502); `invalid_input`: it refused a filter value the caller sent (a 400, the
 * caller's mistake, not a failure); `abandoned`: the request was answered while the read waited for a connection, and
 * the read was never sent.
 */
const SCAN_OUTCOMES = [
  'ok',
  'row_invalid',
  'invalid_input',
  'timeout',
  'unavailable',
  'failed',
  'abandoned',
] as const;

export interface LiveScan {
  readonly outcome: (typeof SCAN_OUTCOMES)[number];
  /** Time the query ran, in milliseconds. */
  readonly durationMs: number;
  /** Time spent waiting for a pooled connection, in milliseconds. */
  readonly waitMs: number;
  readonly rows: number;
  readonly bytes: number;
}

/** Counters of one table; resolve it once (per table) and record into it. */
export interface TableMetrics {
  recordLoad(outcome: 'ok' | 'failed', durationMs: number): void;
  /** The row count of the snapshot now served (after a generation swap). */
  recordServed(rows: number): void;
  /** The snapshot served matched its source at `at` (epoch ms): its load, or a poll that found it unchanged. */
  recordCurrent(at: number): void;
  recordLiveScan(scan: LiveScan): void;
}

export interface RelayMetrics {
  readonly routes: RouteMetrics;
  table(datasetId: string, tableId: string): TableMetrics;
  recordReload(scope: ReloadScope, trigger: LoadTrigger, outcome: 'ok' | 'failed'): void;
  /** This process's families, with readiness read from `state` now. */
  families(state: RelayState): MetricFamily[];
}

interface TableStats extends TableMetrics {
  readonly datasetId: string;
  readonly tableId: string;
  loadsOk: number;
  loadsFailed: number;
  readonly loadTime: Histogram;
  rows: number | undefined;
  currentAt: number | undefined;
  readonly scans: Record<LiveScan['outcome'], number>;
  readonly scanTime: Histogram;
  readonly scanWait: Histogram;
  scanRows: number;
  scanBytes: number;
  /** A live table reports its scan series from the start, at 0 until its first scan. */
  readonly live: boolean;
}

export function createRelayMetrics(config: RelayConfig): RelayMetrics {
  const routes = createRouteMetrics(METRIC_PREFIX);
  const tables = new Map<string, TableStats>();
  for (const dataset of config.datasets) {
    for (const table of dataset.tables) {
      const live = table.materialization === 'live';
      tables.set(`${dataset.id}/${table.id}`, tableStats(dataset.id, table.id, live));
    }
  }
  const reloads = new Map<string, number>(RELOAD_SERIES.map((key) => [key, 0]));

  return {
    routes,
    table(datasetId, tableId) {
      const stats = tables.get(`${datasetId}/${tableId}`);
      if (!stats) throw new TypeError(`no table ${datasetId}/${tableId} in the config`);
      return stats;
    },
    recordReload(scope, trigger, outcome) {
      const key = `${scope}|${trigger}|${outcome}`;
      reloads.set(key, (reloads.get(key) ?? 0) + 1);
    },
    families(state) {
      const p = METRIC_PREFIX;
      const { total, loaded, failed } = state.readiness;
      const ready = state.generation !== undefined;
      const loadCounts: MetricSample[] = [];
      const loadTimes: MetricSample[] = [];
      const rowCounts: MetricSample[] = [];
      const currentTimes: MetricSample[] = [];
      const scans: MetricSample[] = [];
      const scanTimes: MetricSample[] = [];
      const scanWaits: MetricSample[] = [];
      const scanRows: MetricSample[] = [];
      const scanBytes: MetricSample[] = [];
      for (const stats of tables.values()) {
        const labels = { dataset: stats.datasetId, table: stats.tableId };
        loadCounts.push({ labels: { ...labels, outcome: 'ok' }, value: stats.loadsOk });
        loadCounts.push({ labels: { ...labels, outcome: 'failed' }, value: stats.loadsFailed });
        loadTimes.push(
          ...histogramSamples(
            `${p}_source_load_duration_seconds`,
            labels,
            stats.loadTime,
            LOAD_BUCKETS_SECONDS,
          ),
        );
        if (stats.rows !== undefined) rowCounts.push({ labels, value: stats.rows });
        if (stats.currentAt !== undefined) currentTimes.push({ labels, value: stats.currentAt / 1000 });
        if (!stats.live && SCAN_OUTCOMES.every((outcome) => stats.scans[outcome] === 0)) continue;
        for (const outcome of SCAN_OUTCOMES) {
          scans.push({ labels: { ...labels, outcome }, value: stats.scans[outcome] });
        }
        scanTimes.push(
          ...histogramSamples(`${p}_datasource_live_scan_duration_seconds`, labels, stats.scanTime),
        );
        scanWaits.push(...histogramSamples(`${p}_datasource_live_scan_wait_seconds`, labels, stats.scanWait));
        scanRows.push({ labels, value: stats.scanRows });
        scanBytes.push({ labels, value: stats.scanBytes });
      }
      const reloadCounts: MetricSample[] = [...reloads].map(([key, value]) => {
        const [scope, trigger, outcome] = key.split('|') as [string, string, string];
        return { labels: { scope, trigger, outcome }, value };
      });
      const generationTime = state.generation
        ? [{ labels: {}, value: state.generation.loadedAt / 1000 }]
        : [];
      return [
        ...routes.families(),
        ...processFamilies({ running: true, ready, total, loaded, failed }),
        gaugeFamily(
          `${p}_generation_loaded_timestamp_seconds`,
          'When the data generation being served was assembled (Unix time; the oldest over processes).',
          generationTime,
          'min',
        ),
        counterFamily(
          `${p}_reloads_total`,
          'Reloads by scope (all, table), trigger and outcome.',
          reloadCounts,
        ),
        counterFamily(`${p}_source_loads_total`, 'Table loads (startup and reloads) by outcome.', loadCounts),
        histogramFamily(
          `${p}_source_load_duration_seconds`,
          'Time to load one table, in seconds.',
          loadTimes,
        ),
        gaugeFamily(
          `${p}_source_rows`,
          'Rows in the snapshot being served (live tables have none).',
          rowCounts,
          'max',
        ),
        gaugeFamily(
          `${p}_source_current_timestamp_seconds`,
          'When the snapshot served last matched its source: its load, or a later change-token poll that found it unchanged (Unix time; the oldest over processes).',
          currentTimes,
          'min',
        ),
        counterFamily(
          `${p}_datasource_live_scans_total`,
          'Live source scans by outcome: ok, row_invalid (the database answered with a row that does not fit the declared schema), invalid_input (it refused a filter value the caller sent), timeout (past query_timeout), unavailable (the database could not be reached), failed (it refused the read), abandoned (the request was answered, its client gone or its time up, while the read waited for a connection: never sent).',
          scans,
        ),
        histogramFamily(
          `${p}_datasource_live_scan_duration_seconds`,
          'Time a live scan ran, in seconds.',
          scanTimes,
        ),
        histogramFamily(
          `${p}_datasource_live_scan_wait_seconds`,
          'Time a live scan waited for a connection, in seconds.',
          scanWaits,
        ),
        counterFamily(`${p}_datasource_live_scan_rows_total`, 'Rows returned by live scans.', scanRows),
        counterFamily(`${p}_datasource_live_scan_bytes_total`, 'Bytes returned by live scans.', scanBytes),
      ];
    },
  };
}

/**
 * The admin listener's own requests: the same HTTP families as the public listener's, each series labelled
 * `listener="admin"` (`/healthz` and `/ready` are routes of both).
 */
export function createAdminRouteMetrics(): RouteMetrics {
  return createRouteMetrics(METRIC_PREFIX, { listener: 'admin' });
}

/** Whether one process runs and how far it loaded; combined over the processes of a `--workers` relay. */
export interface ProcessReadiness {
  readonly running: boolean;
  readonly ready: boolean;
  readonly total: number;
  readonly loaded: number;
  readonly failed: number;
}

/** The families a process reports about itself; the primary reports them for a worker that is not running. */
export function processFamilies(status: ProcessReadiness): MetricFamily[] {
  const p = METRIC_PREFIX;
  return [
    gaugeFamily(`${p}_processes`, 'Relay processes running (one per worker).', [
      { labels: {}, value: status.running ? 1 : 0 },
    ]),
    gaugeFamily(
      `${p}_readiness_fully_ready`,
      '1 when every table is loaded and served, else 0 (the minimum over processes).',
      [{ labels: {}, value: status.ready ? 1 : 0 }],
      'min',
    ),
    gaugeFamily(
      `${p}_readiness_ready_resources`,
      'Tables loaded (of the generation served, else of the last load attempt).',
      [{ labels: {}, value: status.loaded }],
      'min',
    ),
    gaugeFamily(
      `${p}_readiness_failed_resources`,
      'Tables that failed to load (0 once a generation is served: a failed reload keeps it).',
      [{ labels: {}, value: status.failed }],
      'max',
    ),
    gaugeFamily(
      `${p}_readiness_not_ready_resources`,
      'Tables not loaded yet (0 once a generation is served).',
      [{ labels: {}, value: status.total - status.loaded }],
      'max',
    ),
  ];
}

/** How many relay processes should be running: 1, or the `--workers` count (reported once, by the primary). */
export function configuredProcessesFamily(count: number): MetricFamily {
  return gaugeFamily(
    `${METRIC_PREFIX}_processes_configured`,
    'Relay processes there should be; more than ambit_relay_processes while a worker is being restarted.',
    [{ labels: {}, value: count }],
    'max',
  );
}

function tableStats(datasetId: string, tableId: string, live: boolean): TableStats {
  const stats: TableStats = {
    datasetId,
    tableId,
    live,
    loadsOk: 0,
    loadsFailed: 0,
    loadTime: createHistogram(LOAD_BUCKETS_SECONDS),
    rows: undefined,
    currentAt: undefined,
    scans: Object.fromEntries(SCAN_OUTCOMES.map((outcome) => [outcome, 0])) as Record<
      LiveScan['outcome'],
      number
    >,
    scanTime: createHistogram(LATENCY_BUCKETS_SECONDS),
    scanWait: createHistogram(LATENCY_BUCKETS_SECONDS),
    scanRows: 0,
    scanBytes: 0,
    recordLoad(outcome, durationMs) {
      if (outcome === 'ok') stats.loadsOk++;
      else stats.loadsFailed++;
      observe(stats.loadTime, LOAD_BOUNDS, durationMs);
    },
    recordServed(rows) {
      stats.rows = rows;
    },
    recordCurrent(at) {
      // A poll that started before a load ended may report after it: keep the later time.
      if (stats.currentAt === undefined || at > stats.currentAt) stats.currentAt = at;
    },
    recordLiveScan(scan) {
      stats.scans[scan.outcome]++;
      // A read dropped before it was sent ran no query: only its wait counts.
      if (scan.outcome !== 'abandoned') observe(stats.scanTime, LATENCY_BOUNDS, scan.durationMs);
      observe(stats.scanWait, LATENCY_BOUNDS, scan.waitMs);
      stats.scanRows += scan.rows;
      stats.scanBytes += scan.bytes;
    },
  };
  return stats;
}

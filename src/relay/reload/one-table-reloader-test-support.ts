// Shared by the reloader's tests: one table `d/t` with an mtime refresh, and a reloader over it whose loads,
// change tokens and generation hooks the test supplies.
import { fixedClock } from '../../platform/clock.ts';
import { silentLogger } from '../../platform/log.ts';
import type { RelayConfig } from '../config/schema.ts';
import { createRelayMetrics } from '../metrics/relay-metrics.ts';
import type { RelayState } from '../relay-state.ts';
import type { TableSnapshot } from '../store/table-snapshot.ts';
import { createReloader, type ReloaderOptions } from './reloader.ts';

export const CLOCK = fixedClock('2026-01-01T00:00:00Z');

export const ONE_MTIME_TABLE = {
  datasets: [{ id: 'd', defaults: {}, tables: [{ id: 't', refresh: { mode: 'mtime', interval: 1000 } }] }],
} as unknown as RelayConfig;

export function oneTableReloader(
  options: Pick<ReloaderOptions, 'loadTable' | 'changeToken' | 'beginGeneration'>,
) {
  const state: RelayState = { generation: undefined, readiness: { total: 1, loaded: 0, failed: 0 } };
  const reloader = createReloader({
    config: ONE_MTIME_TABLE,
    state,
    clock: CLOCK,
    logger: silentLogger(),
    metrics: createRelayMetrics(ONE_MTIME_TABLE),
    ...options,
  });
  return { reloader, state };
}

/** A loaded table as the reloader sees it: its version and row count, and no indexes. */
export function stubSnapshot(version: string, rowCount = 1): TableSnapshot {
  return {
    rowCount,
    version,
    indexedColumns: () => ({ hash: [], sorted: [] }),
    prepareIndexes: async () => {},
  } as unknown as TableSnapshot;
}

// What the primary of `--workers N` reports for a worker that is not running (being started again) or does not
// answer: a process with nothing loaded, so that /ready, posture and the metrics count it as not ready.
import type { MetricFamily } from '../../platform/metrics/metric-family.ts';
import type { ProcessStatus } from '../admin/admin-backend.ts';
import type { LoadedRelayConfig } from '../config/load-relay-config.ts';
import { processFamilies } from '../metrics/relay-metrics.ts';
import type { ReloadOutcome } from '../reload/reload-outcome.ts';

function tableCount(loaded: LoadedRelayConfig): number {
  return loaded.config.datasets.reduce((sum, dataset) => sum + dataset.tables.length, 0);
}

export function notReady(loaded: LoadedRelayConfig): ProcessStatus {
  const total = tableCount(loaded);
  return {
    running: false,
    ready: false,
    readiness: { total, loaded: 0, failed: 0 },
    waiting: [],
    generation: undefined,
    loadedAt: undefined,
  };
}

export function notRunningFamilies(loaded: LoadedRelayConfig): MetricFamily[] {
  return processFamilies({ running: false, ready: false, total: tableCount(loaded), loaded: 0, failed: 0 });
}

/** A reload asked before every worker has started: nothing ran, and nothing is queued (each first load reads it all). */
export function firstLoadRunning(loaded: LoadedRelayConfig): ReloadOutcome {
  const total = tableCount(loaded);
  return {
    ok: false,
    counts: { total, succeeded: 0, failed: 0 },
    failures: [],
    generation: undefined,
    firstLoadRunning: { waiting: [] },
  };
}

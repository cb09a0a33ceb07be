// What the admin routes act on: the relay processes. One process answers for itself; the primary of a
// `--workers N` relay answers by asking every worker (src/relay/cluster/).
import type { MetricFamily } from '../../platform/metrics/metric-family.ts';
import { configuredProcessesFamily, type RelayMetrics } from '../metrics/relay-metrics.ts';
import type { RelayState } from '../relay-state.ts';
import type { Reloader, ReloadFailure, ReloadOutcome, TableWaiting } from '../reload/reloader.ts';
import { waitingTables } from '../routes/health.ts';

export interface ProcessStatus {
  /** False for a worker that is not running (being restarted) or did not answer. */
  readonly running: boolean;
  readonly ready: boolean;
  readonly readiness: { readonly total: number; readonly loaded: number; readonly failed: number };
  /** Tables whose first load waits for their database (empty once a generation is served). */
  readonly waiting: readonly TableWaiting[];
  readonly generation: string | undefined;
  readonly loadedAt: number | undefined;
}

export interface RelayAdminBackend {
  /** Reloads resolve with the outcome, failed loads included; they reject only when no process answered. */
  /** `startup`: asked by the relay itself, not an operator (counted and logged as such). */
  reloadAll(trigger?: 'admin' | 'startup'): Promise<ReloadOutcome>;
  reloadTable(datasetId: string, tableId: string): Promise<ReloadOutcome>;
  /** Metric families per process. */
  metrics(): Promise<MetricFamily[][]>;
  /** One status per process. */
  status(): Promise<ProcessStatus[]>;
}

export function processStatus(state: RelayState): ProcessStatus {
  const { total, loaded, failed } = state.readiness;
  return {
    running: true,
    ready: state.generation !== undefined,
    readiness: { total, loaded, failed },
    waiting: state.generation === undefined ? waitingTables(state.readiness.waiting) : [],
    generation: state.generation?.version,
    loadedAt: state.generation?.loadedAt,
  };
}

/** The backend of a single-process relay: its own reloader, metrics and state. */
export function createLocalAdminBackend(
  reloader: Reloader,
  metrics: RelayMetrics,
  state: RelayState,
): RelayAdminBackend {
  return {
    reloadAll: (trigger = 'admin') => reloader.reloadAll(trigger),
    reloadTable: (datasetId, tableId) => reloader.reloadTable(datasetId, tableId, 'admin'),
    metrics: async () => [[...metrics.families(state), configuredProcessesFamily(1)]],
    status: async () => [processStatus(state)],
  };
}

/** Outcomes of the same reload in several processes: failed when any failed, counts per table. */
export function combineOutcomes(outcomes: readonly ReloadOutcome[]): ReloadOutcome {
  const first = outcomes[0];
  if (!first) throw new TypeError('no process answered');
  const failures = new Map<string, ReloadOutcome['failures'][number]>();
  for (const outcome of outcomes) {
    for (const failure of outcome.failures)
      failures.set(`${failure.dataset_id}/${failure.table_id}`, failure);
  }
  const failed = failures.size;
  const generations = new Set(outcomes.map((outcome) => outcome.generation));
  // A process still in its first load refused the reload: the operator hears that, whatever the others did.
  const waiting = new Map<string, ReloadFailure>();
  let firstLoadRunning = false;
  for (const outcome of outcomes) {
    if (!outcome.firstLoadRunning) continue;
    firstLoadRunning = true;
    for (const wait of outcome.firstLoadRunning.waiting)
      waiting.set(`${wait.dataset_id}/${wait.table_id}`, wait);
  }
  const failedProcesses = outcomes.filter((outcome) => !outcome.ok).length;
  const split = failedProcesses > 0 && failedProcesses < outcomes.length && !firstLoadRunning;
  return {
    ok: failedProcesses === 0,
    counts: { total: first.counts.total, succeeded: first.counts.total - failed, failed },
    failures: [...failures.values()],
    generation: generations.size === 1 ? first.generation : undefined,
    ...(generations.size > 1 ? { generationsDiffer: true as const } : {}),
    ...(firstLoadRunning ? { firstLoadRunning: { waiting: [...waiting.values()] } } : {}),
    ...(split ? { splitProcesses: { failed: failedProcesses, total: outcomes.length } } : {}),
  };
}

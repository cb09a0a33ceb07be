// Bench child: loads the 1M-row relay in-process and times aggregate execution, then full in-process requests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { computeAggregate } from '../../src/relay/aggregates/compute-aggregate.ts';
import { parseAggregateBody } from '../../src/relay/aggregates/parse-aggregate-request.ts';
import { createRelayApp } from '../../src/relay/app.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';

/** Timings in milliseconds. */
export interface ExecutionTiming {
  readonly name: string;
  readonly description: string;
  readonly rowsVisited: number;
  readonly groups: number;
  /** The first run of the process, which also dictionary-encodes the columns it needs. */
  readonly coldMs: number;
  readonly runs: readonly number[];
  readonly medianMs: number;
  readonly p90Ms: number;
  /** CPU time (user + system) of each run: steadier than wall time on a shared host. */
  readonly cpuRuns: readonly number[];
  readonly cpuMedianMs: number;
}

export interface ExecutionReport {
  readonly event: 'ready';
  readonly rows: number;
  readonly loadMs: number;
  readonly execution: readonly ExecutionTiming[];
  /** GET through the whole in-process stack (auth, audit, rendering), each a cache miss. */
  readonly request: {
    readonly runs: readonly number[];
    readonly medianMs: number;
    readonly bodyBytes: number;
  };
}

const [configPath, runsText = '30'] = process.argv.slice(2);
if (configPath === undefined) {
  console.error('usage: measure-execution.ts <config.yaml> [runs]');
  process.exit(2);
}
const RUNS = Number(runsText);
const AGGREGATE_PATH = '/v1/datasets/bench/aggregates/payments_by_district_month';

const scenarios = [
  {
    name: 'all-rows',
    description: 'group by district and month (60 groups), count + sum + avg over all 1,000,000 rows',
    body: {},
  },
  {
    name: 'one-district',
    description: 'the same with `district = north_hills` (an indexed equality, ~100,000 rows)',
    body: { filters: { district: 'north_hills' } },
  },
  {
    name: 'month-range',
    description:
      'the same with `month` between 2026-02 and 2026-04 (a wide range checked per row, ~500,000 rows)',
    body: { filters: { month: { from: '2026-02', to: '2026-04' } } },
  },
] as const;

const work = mkdtempSync(join(tmpdir(), 'ambit-bench-aggregate-exec-'));
const loaded = loadRelayConfig(configPath, {
  ...process.env,
  AMBIT_BENCH_AUDIT_PATH: join(work, 'audit.jsonl'),
});
const started = performance.now();
const relay = createRelayApp(loaded, { logger: silentLogger(), clock: systemClock, random: systemRandom });
await relay.loaded;
await relay.app.ready();
const loadMs = performance.now() - started;
const generation = relay.runtime.state.generation;
const aggregate = relay.runtime.catalog.datasets.get('bench')?.aggregates.get('payments_by_district_month');
if (!generation || !aggregate) throw new Error('bench relay did not load its aggregate');
const rows = generation.table('bench', 'payments_1m').rowCount;

const execution: ExecutionTiming[] = scenarios.map((scenario) => {
  const query = parseAggregateBody(aggregate, scenario.body);
  const time = () => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const result = computeAggregate(generation, aggregate, query);
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return { ms, cpuMs: (used.user + used.system) / 1000, result };
  };
  const cold = time();
  const runs: number[] = [];
  const cpuRuns: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = time();
    runs.push(run.ms);
    cpuRuns.push(run.cpuMs);
  }
  const result = cold.result;
  return {
    name: scenario.name,
    description: scenario.description,
    rowsVisited: result.observations.reduce((sum, o) => sum + (o.values[0] ?? 0), 0),
    groups: result.observations.length,
    coldMs: cold.ms,
    runs,
    medianMs: quantile(runs, 0.5),
    p90Ms: quantile(runs, 0.9),
    cpuRuns,
    cpuMedianMs: quantile(cpuRuns, 0.5),
  };
});

// Each request asks for a different max_rows, so its ETag differs and no rendered answer is reused.
const requestRuns: number[] = [];
let bodyBytes = 0;
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  const response = await relay.app.inject({
    method: 'GET',
    url: `${AGGREGATE_PATH}?max_rows=${10_000 - i}`,
    headers: { authorization: `Bearer ${process.env.AMBIT_BENCH_API_KEY ?? ''}` },
  });
  requestRuns.push(performance.now() - start);
  if (response.statusCode !== 200)
    throw new Error(`in-process GET answered ${response.statusCode}: ${response.body}`);
  bodyBytes = response.rawPayload.length;
}
await relay.close();
rmSync(work, { recursive: true, force: true });

const report: ExecutionReport = {
  event: 'ready',
  rows,
  loadMs,
  execution,
  request: { runs: requestRuns, medianMs: quantile(requestRuns, 0.5), bodyBytes },
};
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

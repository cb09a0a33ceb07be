// The relay read bench results: their JSON shape, medians, and the markdown tables printed after a run.
import { columns, formatRange, markdownTable, percent, ratioCell, thousands } from '../shared/markdown.ts';
import type { WrkRunMeasurement } from '../shared/measure-wrk-run.ts';
import { median, pairedRatios } from '../shared/round-statistics.ts';
import type { ParquetLoadRun } from './measure-parquet-load.ts';
import type { ScenarioName } from './prepare-scenarios.ts';

export type Target = 'relay' | 'bare';

export interface MeasuredRun {
  readonly round: number;
  readonly target: Target;
  readonly rps: number;
  readonly requests: number;
  readonly latencyP50Ms: number | undefined;
  readonly latencyP99Ms: number | undefined;
  readonly cpuUsPerRequest: number;
  readonly instructionsPerRequest: number | undefined;
}

export interface ScenarioResult {
  readonly name: ScenarioName;
  readonly description: string;
  readonly path: string;
  readonly status: number;
  readonly bodyBytes: number;
  readonly targetRatio: number;
  readonly runs: readonly MeasuredRun[];
}

export interface ParquetResult {
  readonly rows: number;
  readonly columns: number;
  readonly fileBytes: number;
  readonly runs: readonly ParquetLoadRun[];
  readonly targetReadyMs: number;
  readonly targetRssBytes: number;
}

export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: {
    readonly node: string;
    readonly cpus: number;
    readonly cpuModel: string;
    /** One-minute load averages sampled before each measured run. */
    readonly loadAverages: readonly number[];
    readonly instructionsCountable: boolean;
  };
  readonly method: {
    readonly rounds: number;
    readonly warmupS: number;
    readonly durationS: number;
    readonly connections: number;
    /** True when the relay ran with --cpu-prof: its numbers are then slower than a plain run's. */
    readonly profiled: boolean;
  };
  readonly scenarios: readonly ScenarioResult[];
  readonly parquet: ParquetResult | undefined;
}

export interface ScenarioSummary {
  readonly relayRps: number;
  readonly bareRps: number;
  /** Median over rounds of relay rps / bare rps measured in the same round. */
  readonly ratio: number;
  readonly ratios: readonly number[];
  readonly relayCpuUsPerRequest: number;
  readonly bareCpuUsPerRequest: number;
  /** Bare CPU time per request over the relay's (medians): the throughput ratio a saturated core would give. */
  readonly cpuRatio: number;
  readonly relayInstructionsPerRequest: number | undefined;
  readonly bareInstructionsPerRequest: number | undefined;
  readonly met: boolean;
}

export { median };

/** A measured run as stored in the results: per-request CPU time and instructions of the serving process. */
export function measuredRun(round: number, target: Target, measurement: WrkRunMeasurement): MeasuredRun {
  const { result, cpuMs, instructions } = measurement;
  return {
    round,
    target,
    rps: result.rps,
    requests: result.requests,
    latencyP50Ms: result.latencyP50Ms,
    latencyP99Ms: result.latencyP99Ms,
    cpuUsPerRequest: (cpuMs * 1000) / result.requests,
    instructionsPerRequest: instructions === undefined ? undefined : instructions / result.requests,
  };
}

export function summarizeScenario(result: ScenarioResult): ScenarioSummary {
  const of = (target: Target) => result.runs.filter((run) => run.target === target);
  const relay = of('relay');
  const bare = of('bare');
  const ratios = pairedRatios(relay, bare);
  const instructions = (runs: readonly MeasuredRun[]) => {
    const counted = runs.flatMap((run) =>
      run.instructionsPerRequest === undefined ? [] : [run.instructionsPerRequest],
    );
    return counted.length === 0 ? undefined : median(counted);
  };
  const ratio = median(ratios);
  const relayCpu = median(relay.map((run) => run.cpuUsPerRequest));
  const bareCpu = median(bare.map((run) => run.cpuUsPerRequest));
  return {
    relayRps: median(relay.map((run) => run.rps)),
    bareRps: median(bare.map((run) => run.rps)),
    ratio,
    ratios,
    relayCpuUsPerRequest: relayCpu,
    bareCpuUsPerRequest: bareCpu,
    cpuRatio: bareCpu / relayCpu,
    relayInstructionsPerRequest: instructions(relay),
    bareInstructionsPerRequest: instructions(bare),
    met: ratio >= result.targetRatio,
  };
}

export function renderResults(results: BenchResults): string {
  const lines = [
    `Relay read bench, ${results.startedAt} (node ${results.machine.node}, ${results.machine.cpus} CPUs, ` +
      `load average ${formatRange(results.machine.loadAverages)})`,
    '',
    ...markdownTable(
      columns(
        'scenario',
        'body B:',
        'relay rps:',
        'bare rps:',
        'relay/bare (per round)',
        'target:',
        'met',
        'CPU µs/req relay / bare:',
        'CPU ratio:',
        'k-instr/req relay / bare:',
      ),
      results.scenarios.map((scenario) => {
        const s = summarizeScenario(scenario);
        return [
          scenario.name,
          String(scenario.bodyBytes),
          thousands(s.relayRps),
          thousands(s.bareRps),
          ratioCell(s.ratio, s.ratios),
          `≥ ${percent(scenario.targetRatio)}`,
          s.met ? 'yes' : 'NO',
          `${s.relayCpuUsPerRequest.toFixed(1)} / ${s.bareCpuUsPerRequest.toFixed(1)}`,
          percent(s.cpuRatio),
          `${kilo(s.relayInstructionsPerRequest)} / ${kilo(s.bareInstructionsPerRequest)}`,
        ];
      }),
    ),
  ];
  if (results.parquet) lines.push('', ...renderParquet(results.parquet));
  return lines.join('\n');
}

export function parquetMet(parquet: ParquetResult): { ready: boolean; rss: boolean } {
  return {
    ready: median(parquet.runs.map((run) => run.readyMs)) <= parquet.targetReadyMs,
    rss: Math.max(...parquet.runs.map((run) => run.rssBytes)) <= parquet.targetRssBytes,
  };
}

function renderParquet(parquet: ParquetResult): string[] {
  const met = parquetMet(parquet);
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  return [
    `Parquet load: ${thousands(parquet.rows)} rows × ${parquet.columns} columns, ${mb(parquet.fileBytes)} MB file, ` +
      `fresh process per run. Target: ready ≤ ${parquet.targetReadyMs / 1000} s (median; ${met.ready ? 'met' : 'MISSED'}), ` +
      `RSS ≤ ${mb(parquet.targetRssBytes)} MB (worst run; ${met.rss ? 'met' : 'MISSED'}).`,
    '',
    ...loadRunsTable(parquet.runs),
  ];
}

function kilo(value: number | undefined): string {
  return value === undefined ? 'n/a' : (value / 1000).toFixed(0);
}

/** One row per fresh process: time to ready, time to load, memory. */
export function loadRunsTable(runs: readonly ParquetLoadRun[]): string[] {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  return markdownTable(
    columns('run:', 'spawn → /ready 200:', 'startRelay → loaded:', 'RSS after GC:', 'heap used:'),
    runs.map((run, index) => [
      String(index + 1),
      `${(run.readyMs / 1000).toFixed(2)} s`,
      `${(run.loadMs / 1000).toFixed(2)} s`,
      `${mb(run.rssBytes)} MB`,
      `${mb(run.heapUsedBytes)} MB`,
    ]),
  );
}

// The evaluate bench results: their JSON shape, per-round ratios against the relay, and the markdown tables.
import { formatRange, percent, thousands } from '../shared/markdown.ts';
import { median, pairedRatios } from '../shared/round-statistics.ts';
import type { BatchResult } from './measure-batches.ts';
import type { ScenarioName } from './scenarios.ts';

export const TARGET_RATIO = 0.4;

export interface MeasuredRun {
  readonly round: number;
  readonly rps: number;
  readonly requests: number;
  readonly latencyP50Ms: number | undefined;
  readonly latencyP99Ms: number | undefined;
  /** CPU time of every process serving the scenario (verifier and relay for evaluations) per request. */
  readonly cpuUsPerRequest: number;
  /** The relay's part of it (all of it for the relay read); absent in results written before it was recorded. */
  readonly relayPartUsPerRequest?: number;
}

export interface ScenarioResult {
  readonly name: ScenarioName;
  readonly description: string;
  readonly request: string;
  readonly runs: readonly MeasuredRun[];
}

export interface EvaluateResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: {
    readonly node: string;
    readonly cpus: number;
    readonly cpuModel: string;
    readonly loadAverages: readonly number[];
    readonly instructionsCountable: boolean;
  };
  readonly method: {
    readonly rounds: number;
    readonly warmupS: number;
    readonly initialWarmupS: number;
    readonly durationS: number;
    readonly connections: number;
    readonly subjects: number;
    readonly profiled: boolean;
  };
  readonly scenarios: readonly ScenarioResult[];
  readonly batch: BatchResult | undefined;
}

export interface EvaluateSummary {
  readonly rps: number;
  readonly relayRps: number;
  /** Median over rounds of this scenario's rps / the relay read's rps in the same round. */
  readonly ratio: number;
  readonly ratios: readonly number[];
  readonly cpuUsPerRequest: number;
  /** The relay's part of cpuUsPerRequest: a read costs the relay more behind a proxy than under wrk directly. */
  readonly relayPartUsPerRequest: number;
  readonly relayCpuUsPerRequest: number;
  /** Relay CPU per read over verifier+relay CPU per evaluation: the ratio a saturated core would give. */
  readonly cpuRatio: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** Whether the scenario reaches TARGET_RATIO; undefined for the bare proxy baseline, which has no target. */
  readonly met: boolean | undefined;
}

/** The summary of an evaluate scenario against the relay read of the same rounds; undefined for the relay read. */
export function summarize(results: EvaluateResults, name: ScenarioName): EvaluateSummary | undefined {
  if (name === 'relay-read') return undefined;
  const scenario = results.scenarios.find((entry) => entry.name === name);
  const relay = results.scenarios.find((entry) => entry.name === 'relay-read');
  if (!scenario || !relay) return undefined;
  const ratios = pairedRatios(scenario.runs, relay.runs);
  const ratio = median(ratios);
  const cpu = median(scenario.runs.map((run) => run.cpuUsPerRequest));
  const relayCpu = median(relay.runs.map((run) => run.cpuUsPerRequest));
  return {
    rps: median(scenario.runs.map((run) => run.rps)),
    relayRps: median(relay.runs.map((run) => run.rps)),
    ratio,
    ratios,
    cpuUsPerRequest: cpu,
    relayPartUsPerRequest: median(scenario.runs.map((run) => run.relayPartUsPerRequest ?? Number.NaN)),
    relayCpuUsPerRequest: relayCpu,
    cpuRatio: relayCpu / cpu,
    latencyP50Ms: median(scenario.runs.map((run) => run.latencyP50Ms ?? Number.NaN)),
    latencyP99Ms: median(scenario.runs.map((run) => run.latencyP99Ms ?? Number.NaN)),
    met: name === 'bare-proxy' ? undefined : ratio >= TARGET_RATIO,
  };
}

export function renderEvaluateResults(results: EvaluateResults): string {
  const relay = results.scenarios.find((entry) => entry.name === 'relay-read');
  const lines = [
    `Verifier evaluate bench, ${results.startedAt} (node ${results.machine.node}, ${results.machine.cpus} CPUs, ` +
      `load average ${formatRange(results.machine.loadAverages)})`,
    '',
    '| scenario | rps | relay read rps | ÷ relay (per round) | target | met | CPU µs/req (all servers) | of which relay | relay read CPU µs/req | CPU ratio | p50 / p99 ms |',
    '|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of results.scenarios) {
    const s = summarize(results, scenario.name);
    if (!s) continue;
    lines.push(
      `| ${scenario.name} | ${thousands(s.rps)} | ${thousands(s.relayRps)} | **${percent(s.ratio)}** ` +
        `(${s.ratios.map(percent).join(' / ')}) | ${s.met === undefined ? '–' : `≥ ${percent(TARGET_RATIO)}`} | ` +
        `${s.met === undefined ? 'baseline' : s.met ? 'yes' : 'NO'} | ` +
        `${s.cpuUsPerRequest.toFixed(0)} | ${s.relayPartUsPerRequest.toFixed(0)} | ` +
        `${s.relayCpuUsPerRequest.toFixed(0)} | ${percent(s.cpuRatio)} | ` +
        `${s.latencyP50Ms.toFixed(1)} / ${s.latencyP99Ms.toFixed(1)} |`,
    );
  }
  if (relay) {
    const p50 = median(relay.runs.map((run) => run.latencyP50Ms ?? Number.NaN));
    const p99 = median(relay.runs.map((run) => run.latencyP99Ms ?? Number.NaN));
    lines.push('', `Relay read alone: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms.`);
  }
  if (results.batch) lines.push('', ...renderBatch(results.batch));
  return lines.join('\n');
}

function renderBatch(batch: BatchResult): string[] {
  if (!batch.available) return [`Batch: ${batch.note}`];
  return [
    `Batch: ${batch.runsPerSet} runs per claim set, ${batch.subjects} subjects each, fresh subjects every run. ` +
      `Target: at most one upstream request per source binding (${batch.met ? 'met' : 'MISSED'}).`,
    '',
    '| claims | source bindings | upstream requests per batch | batch latency median (min–max) |',
    '|---|---:|---|---:|',
    ...batch.sets.map((set) => {
      const latencies = set.runs.map((run) => run.ms);
      return (
        `| ${set.claims.join(', ')} | ${set.bindings} | ${set.runs.map((run) => run.upstreamRequests).join(', ')} | ` +
        `${median(latencies).toFixed(0)} ms (${Math.min(...latencies).toFixed(0)}–${Math.max(...latencies).toFixed(0)}) |`
      );
    }),
  ];
}

// Verifier evaluate bench: single-claim evaluations through the verifier and a local relay, against the relay's
// own throughput for the same filtered read, in interleaved wrk rounds; then 100-subject batches.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { generateBenchData } from '../data/generate-bench-data.ts';
import { countProcessWork, instructionsCountable } from '../relay-read/count-process-work.ts';
import { runWrk } from '../relay-read/run-wrk.ts';
import type { ServeRelayReport } from '../relay-read/serve-relay.ts';
import { REPO_DIR } from '../relay-read/start-bench-process.ts';
import { machineInfo, openBenchSession, writeResults } from '../shared/bench-session.ts';
import { freePort } from '../shared/free-port.ts';
import type { BareProxyReport } from './bare-proxy.ts';
import { type BatchResult, measureBatches } from './measure-batches.ts';
import {
  type EvaluateResults,
  type MeasuredRun,
  renderEvaluateResults,
  summarize,
} from './render-evaluate-results.ts';
import { checkScenario, type PreparedScenario, prepareScenarios, type ScenarioName } from './scenarios.ts';
import type { ServeVerifierReport } from './serve-verifier.ts';
import { writeRequestScript } from './write-request-script.ts';

const SERVER_CORE = 0;
const WRK_CORE = 1;
const RELAY_KEY = 'bench-reader-key-0000000000000000000001';
const CALLER_KEY = 'bench-verifier-caller-key-000000000001';
const RESULTS_PATH = join(REPO_DIR, 'bench/verifier-evaluate/results/latest.json');

// Not strict: bench/run-all.sh passes every runner the same arguments.
const { values: parsed } = parseArgs({
  strict: false,
  options: {
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    // Seconds of load per scenario before the first round.
    'initial-warmup': { type: 'string', default: '10' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    // Distinct subjects the scripted requests cycle through.
    subjects: { type: 'string', default: '1000' },
    'batch-runs': { type: 'string', default: '5' },
    'skip-batch': { type: 'boolean', default: false },
    // Writes V8 CPU profiles of the verifier and relay children into this folder.
    'cpu-prof-dir': { type: 'string' },
  },
});
const options = parsed as {
  rounds: string;
  warmup: string;
  'initial-warmup': string;
  duration: string;
  connections: string;
  subjects: string;
  'batch-runs': string;
  'skip-batch': boolean;
  'cpu-prof-dir'?: string;
};
const rounds = Number(options.rounds);
const warmupS = Number(options.warmup);
const initialWarmupS = Number(options['initial-warmup']);
const durationS = Number(options.duration);
const connections = Number(options.connections);
const subjects = Number(options.subjects);

const session = openBenchSession('verifier');
const { work } = session;
const env = {
  AMBIT_BENCH_READER_HASH: fingerprintOf(RELAY_KEY),
  AMBIT_BENCH_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef0123',
  AMBIT_BENCH_AUDIT_SECRET: 'bench-audit-secret-0123456789abcdef01234',
  AMBIT_BENCH_AUDIT_PATH: join(work, 'relay-audit', 'audit.jsonl'),
  AMBIT_BENCH_CALLER_HASH: fingerprintOf(CALLER_KEY),
  AMBIT_BENCH_RELAY_TOKEN: RELAY_KEY,
  AMBIT_BENCH_VERIFIER_AUDIT_PATH: join(work, 'verifier-audit', 'audit.jsonl'),
};
const perfEnabled = instructionsCountable();
const loadAverages: number[] = [];
const profileFlags = (name: string) =>
  options['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${join(options['cpu-prof-dir'], name)}`] : [];

await session.run(async () => {
  const startedAt = new Date().toISOString();
  generateBenchData();
  const scenarios = await measureScenarios();
  const batch = options['skip-batch'] ? undefined : await measureBatchScenario();
  const results: EvaluateResults = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: { ...machineInfo(loadAverages), instructionsCountable: perfEnabled },
    method: {
      rounds,
      warmupS,
      initialWarmupS,
      durationS,
      connections,
      subjects,
      profiled: options['cpu-prof-dir'] !== undefined,
    },
    scenarios,
    batch,
  };
  writeResults(RESULTS_PATH, results);
  console.log(`\n${renderEvaluateResults(results)}\n`);
  console.log(`Results written to ${RESULTS_PATH}`);
  reportTargets(results);
});

async function startPair(name: string, extraEnv: Record<string, string> = {}) {
  const relay = await session.start<ServeRelayReport>({
    entry: 'bench/relay-read/serve-relay.ts',
    args: ['bench/relay-read/relay.bench.yaml', `127.0.0.1:${await freePort()}`],
    core: SERVER_CORE,
    env: { ...env, ...extraEnv },
    nodeFlags: profileFlags(`${name}-relay`),
  });
  const verifier = await session.start<ServeVerifierReport>({
    entry: 'bench/verifier-evaluate/serve-verifier.ts',
    args: ['bench/verifier-evaluate/verifier.bench.yaml', `127.0.0.1:${await freePort()}`],
    core: SERVER_CORE,
    env: { ...env, ...extraEnv, AMBIT_BENCH_RELAY_URL: relay.report.url },
    nodeFlags: profileFlags(`${name}-verifier`),
  });
  console.log(
    `relay at ${relay.report.url} (pid ${relay.pid}), verifier at ${verifier.report.url} (pid ${verifier.pid})`,
  );
  return { relay, verifier };
}

async function measureScenarios() {
  const { relay, verifier } = await startPair('evaluate');
  const bare = await session.start<BareProxyReport>({
    entry: 'bench/verifier-evaluate/bare-proxy.ts',
    args: [`127.0.0.1:${await freePort()}`, relay.report.url, RELAY_KEY],
    core: SERVER_CORE,
  });
  const prepared = await prepareScenarios({
    relayUrl: relay.report.url,
    verifierUrl: verifier.report.url,
    bareUrl: bare.report.url,
    relayKey: RELAY_KEY,
    callerKey: CALLER_KEY,
    subjects,
  });
  // The relay comes last in each list (measureOnce reports its part separately).
  const pids = { relay: [relay.pid], verifier: [verifier.pid, relay.pid], bare: [bare.pid, relay.pid] };
  const runs = new Map<ScenarioName, MeasuredRun[]>(prepared.map((scenario) => [scenario.name, []]));
  // One unmeasured pass first: the verifier's and the relay's paths reach steady state (JIT, caches, sockets)
  // before any round counts, so the first scenario measured is not penalised.
  for (const scenario of prepared) await warmUp(scenario, initialWarmupS);
  for (let round = 1; round <= rounds; round++) {
    // Rotate the order, so each scenario takes each position in turn and a drift of the host is spread evenly.
    const shift = (round - 1) % prepared.length;
    const order = [...prepared.slice(shift), ...prepared.slice(0, shift)];
    for (const scenario of order) {
      const run = await measureOnce(scenario, pids[scenario.server], round);
      runs.get(scenario.name)?.push(run);
      console.log(
        `round ${round} ${scenario.name.padEnd(18)} ${Math.round(run.rps).toString().padStart(6)} rps, ` +
          `${run.cpuUsPerRequest.toFixed(1)} CPU µs/req (relay ${run.relayPartUsPerRequest?.toFixed(1)}), ` +
          `p50 ${run.latencyP50Ms?.toFixed(2)} ms`,
      );
    }
  }
  await bare.stop();
  await verifier.stop();
  await relay.stop();
  return prepared.map((scenario) => ({
    name: scenario.name,
    description: scenario.description,
    request: scenario.sample,
    runs: runs.get(scenario.name) ?? [],
  }));
}

async function warmUp(scenario: PreparedScenario, seconds: number): Promise<void> {
  const scriptPath = join(work, `${scenario.name}.lua`);
  writeRequestScript(scriptPath, scenario.requests);
  await runWrk({ url: `${scenario.baseUrl}/`, scriptPath, connections, core: WRK_CORE, durationS: seconds });
}

async function measureOnce(
  scenario: PreparedScenario,
  pids: readonly number[],
  round: number,
): Promise<MeasuredRun> {
  const scriptPath = join(work, `${scenario.name}.lua`);
  writeRequestScript(scriptPath, scenario.requests);
  const wrk = { url: `${scenario.baseUrl}/`, scriptPath, connections, core: WRK_CORE };
  await runWrk({ ...wrk, durationS: warmupS });
  await checkScenario(scenario);
  loadAverages.push(loadavg()[0] as number);
  const counters = await Promise.all(
    pids.map((pid, index) =>
      countProcessWork(pid, {
        enabled: perfEnabled,
        outputPath: join(work, `perf-${scenario.name}-${round}-${index}.txt`),
      }),
    ),
  );
  const result = await runWrk({ ...wrk, durationS });
  const counted = await Promise.all(counters.map((counter) => counter.stop()));
  const cpuMs = counted.reduce((sum, work) => sum + work.cpuMs, 0);
  // The relay is the last process of every scenario.
  const relayMs = counted[counted.length - 1]?.cpuMs ?? 0;
  return {
    round,
    rps: result.rps,
    requests: result.requests,
    latencyP50Ms: result.latencyP50Ms,
    latencyP99Ms: result.latencyP99Ms,
    cpuUsPerRequest: (cpuMs * 1000) / result.requests,
    relayPartUsPerRequest: (relayMs * 1000) / result.requests,
  };
}

async function measureBatchScenario(): Promise<BatchResult | undefined> {
  // A fresh pair with its own relay audit file: the relay's audit records count the upstream requests.
  const relayAudit = join(work, 'batch-relay-audit', 'audit.jsonl');
  const { relay, verifier } = await startPair('batch', { AMBIT_BENCH_AUDIT_PATH: relayAudit });
  try {
    return await measureBatches({
      verifierUrl: verifier.report.url,
      callerKey: CALLER_KEY,
      relayAuditPath: relayAudit,
      runs: Number(options['batch-runs']),
    });
  } finally {
    await verifier.stop();
    await relay.stop();
  }
}

function reportTargets(results: EvaluateResults): void {
  const missed: string[] = [];
  for (const scenario of results.scenarios) {
    const summary = summarize(results, scenario.name);
    if (summary?.met === false)
      missed.push(`${scenario.name} (${(summary.ratio * 100).toFixed(0)}% of the relay)`);
  }
  if (results.batch?.available && !results.batch.met) missed.push('batch upstream requests');
  console.log(missed.length === 0 ? 'All targets met.' : `Targets missed: ${missed.join(', ')}`);
}

// Relay read bench: relay vs bare node:http on the same bodies, interleaved wrk rounds, then the Parquet load.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { FACILITY_ROWS, generateBenchData } from '../data/generate-bench-data.ts';
import { machineInfo, openBenchSession, writeResults } from '../shared/bench-session.ts';
import { freePort } from '../shared/free-port.ts';
import { measureWrkRun } from '../shared/measure-wrk-run.ts';
import { alternatingOrder } from '../shared/round-statistics.ts';
import { startBareServer } from '../shared/start-bare-server.ts';
import type { BareRoute } from './bare-server.ts';
import { instructionsCountable } from './count-process-work.ts';
import { measureParquetLoad, type ParquetLoadRun } from './measure-parquet-load.ts';
import {
  checkScenario,
  type PreparedScenario,
  prepareScenarios,
  SCENARIO_NAMES,
  type ScenarioName,
} from './prepare-scenarios.ts';
import {
  type BenchResults,
  type MeasuredRun,
  measuredRun,
  type ParquetResult,
  parquetMet,
  renderResults,
  type ScenarioResult,
  summarizeScenario,
  type Target,
} from './render-results.ts';
import { writeHeaderScript } from './run-wrk.ts';
import type { ServeRelayReport } from './serve-relay.ts';
import { REPO_DIR } from './start-bench-process.ts';

const SERVER_CORE = 0;
const WRK_CORE = 1;
const API_KEY = 'bench-reader-key-0000000000000000000001';
const RESULTS_PATH = join(REPO_DIR, 'bench/relay-read/results/latest.json');

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    scenarios: { type: 'string', default: SCENARIO_NAMES.join(',') },
    'parquet-runs': { type: 'string', default: '3' },
    'skip-parquet': { type: 'boolean', default: false },
    // Writes a V8 CPU profile of the relay child (whole lifetime) into this folder.
    'cpu-prof-dir': { type: 'string' },
  },
});
const rounds = Number(options.rounds);
const warmupS = Number(options.warmup);
const durationS = Number(options.duration);
const connections = Number(options.connections);
const scenarioNames = options.scenarios.split(',').filter((name): name is ScenarioName => {
  if ((SCENARIO_NAMES as readonly string[]).includes(name)) return true;
  throw new Error(`unknown scenario ${name}; choose from ${SCENARIO_NAMES.join(', ')}`);
});

const session = openBenchSession('relay-read');
const { work } = session;
const env = {
  AMBIT_BENCH_READER_HASH: fingerprintOf(API_KEY),
  AMBIT_BENCH_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef0123',
  AMBIT_BENCH_AUDIT_SECRET: 'bench-audit-secret-0123456789abcdef01234',
  AMBIT_BENCH_AUDIT_PATH: join(work, 'audit', 'audit.jsonl'),
};
const perfEnabled = instructionsCountable();
const loadAverages: number[] = [];

await session.run(async () => {
  const startedAt = new Date().toISOString();
  const files = generateBenchData();
  const scenarios = await measureScenarios();
  const parquet = options['skip-parquet'] ? undefined : await measureParquet(files.facilities1m);
  const results: BenchResults = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: { ...machineInfo(loadAverages), instructionsCountable: perfEnabled },
    method: { rounds, warmupS, durationS, connections, profiled: options['cpu-prof-dir'] !== undefined },
    scenarios,
    parquet,
  };
  writeResults(RESULTS_PATH, results);
  console.log(`\n${renderResults(results)}\n`);
  if (!perfEnabled)
    console.log('Instructions per request: unavailable (perf stat cannot count instructions here).');
  console.log(`Results written to ${RESULTS_PATH}`);
  reportTargets(results);
});

async function measureScenarios(): Promise<ScenarioResult[]> {
  const relay = await session.start<ServeRelayReport>({
    entry: 'bench/relay-read/serve-relay.ts',
    args: ['bench/relay-read/relay.bench.yaml', `127.0.0.1:${await freePort()}`],
    core: SERVER_CORE,
    env,
    nodeFlags: options['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${options['cpu-prof-dir']}`] : [],
  });
  console.log(
    `relay ready at ${relay.report.url} (pid ${relay.pid}, loaded in ${relay.report.loadMs.toFixed(0)} ms)`,
  );
  const scenarios = await prepareScenarios(relay.report.url, API_KEY, scenarioNames);

  // The bare server replays exactly the bodies the relay just sent, so both send the same bytes.
  const routes = new Map<string, BareRoute>();
  for (const scenario of scenarios) {
    routes.set(scenario.path, {
      url: scenario.path,
      contentType: scenario.contentType,
      etag: scenario.etag,
      bodyBase64: scenario.body.toString('base64'),
    });
  }
  const bare = await startBareServer(session, [...routes.values()], SERVER_CORE);

  const servers: Record<Target, { pid: number; url: string }> = {
    relay: { pid: relay.pid, url: relay.report.url },
    bare: { pid: bare.pid, url: bare.report.url },
  };
  const runs = new Map<ScenarioName, MeasuredRun[]>(scenarios.map((scenario) => [scenario.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of scenarios) {
      for (const target of alternatingOrder<Target>(round, ['relay', 'bare'])) {
        const run = await measureOnce(scenario, target, servers[target], round);
        runs.get(scenario.name)?.push(run);
        console.log(
          `round ${round} ${scenario.name.padEnd(16)} ${target.padEnd(5)} ${Math.round(run.rps).toString().padStart(6)} rps, ` +
            `${run.cpuUsPerRequest.toFixed(1)} CPU µs/req` +
            (run.instructionsPerRequest === undefined
              ? ''
              : `, ${(run.instructionsPerRequest / 1000).toFixed(0)} k-instr/req`),
        );
      }
    }
  }
  await bare.stop();
  await relay.stop();
  return scenarios.map((scenario) => ({
    name: scenario.name,
    description: scenario.description,
    path: scenario.path,
    status: scenario.expectedStatus,
    bodyBytes: scenario.expectedStatus === 304 ? 0 : scenario.body.length,
    targetRatio: scenario.targetRatio,
    runs: runs.get(scenario.name) ?? [],
  }));
}

async function measureOnce(
  scenario: PreparedScenario,
  target: Target,
  server: { pid: number; url: string },
  round: number,
): Promise<MeasuredRun> {
  const scriptPath = join(work, `${scenario.name}.lua`);
  writeHeaderScript(scriptPath, scenario.headers);
  const measurement = await measureWrkRun({
    url: server.url + scenario.path,
    scriptPath,
    connections,
    core: WRK_CORE,
    warmupS,
    durationS,
    // Re-checked before every measured run: wrk counts a 200 as success even where a 304 is expected.
    check: () => checkScenario(server.url, scenario),
    loadAverages,
    count: {
      pids: [server.pid],
      perfEnabled,
      perfOutputPath: () => join(work, `perf-${scenario.name}-${target}-${round}.txt`),
    },
  });
  return measuredRun(round, target, measurement);
}

async function measureParquet(path: string): Promise<ParquetResult> {
  const runs: ParquetLoadRun[] = [];
  for (let run = 1; run <= Number(options['parquet-runs']); run++) {
    const measured = await measureParquetLoad({
      configPath: 'bench/relay-read/relay-parquet.bench.yaml',
      bind: `127.0.0.1:${await freePort()}`,
      env: { ...env, AMBIT_BENCH_AUDIT_PATH: join(work, 'audit-parquet', `run-${run}.jsonl`) },
      core: SERVER_CORE,
    });
    console.log(
      `parquet load ${run}: ready after ${(measured.readyMs / 1000).toFixed(2)} s, ` +
        `RSS ${(measured.rssBytes / 1e6).toFixed(0)} MB`,
    );
    runs.push(measured);
  }
  return {
    rows: FACILITY_ROWS,
    columns: 7,
    fileBytes: statSync(path).size,
    runs,
    targetReadyMs: 5000,
    targetRssBytes: 500e6,
  };
}

function reportTargets(results: BenchResults): void {
  const missed: string[] = [];
  for (const scenario of results.scenarios) {
    const summary = summarizeScenario(scenario);
    if (!summary.met) missed.push(`${scenario.name} (${(summary.ratio * 100).toFixed(0)}% of bare)`);
  }
  if (results.parquet) {
    const met = parquetMet(results.parquet);
    if (!met.ready) missed.push('parquet ready time');
    if (!met.rss) missed.push('parquet RSS');
  }
  console.log(missed.length === 0 ? 'All targets met.' : `Targets missed: ${missed.join(', ')}`);
}

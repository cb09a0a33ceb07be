// PostgreSQL bench: live reads (relay vs bare node:http on the same bodies, interleaved wrk rounds), then the
// snapshot load of the 1,000,000-row table in a fresh process. Reuses the relay-read bench's processes and parsers.
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import type { BareRoute } from '../relay-read/bare-server.ts';
import { instructionsCountable } from '../relay-read/count-process-work.ts';
import { measureParquetLoad, type ParquetLoadRun } from '../relay-read/measure-parquet-load.ts';
import type { ScenarioName } from '../relay-read/prepare-scenarios.ts';
import {
  loadRunsTable,
  type MeasuredRun,
  measuredRun,
  type ScenarioResult,
  summarizeScenario,
  type Target,
} from '../relay-read/render-results.ts';
import { writeHeaderScript } from '../relay-read/run-wrk.ts';
import type { ServeRelayReport } from '../relay-read/serve-relay.ts';
import { REPO_DIR } from '../relay-read/start-bench-process.ts';
import { machineInfo, openBenchSession, writeResults } from '../shared/bench-session.ts';
import { freePort } from '../shared/free-port.ts';
import { columns, markdownTable, percent, ratioCell } from '../shared/markdown.ts';
import { measureWrkRun } from '../shared/measure-wrk-run.ts';
import { alternatingOrder, median } from '../shared/round-statistics.ts';
import { startBareServer } from '../shared/start-bare-server.ts';
import { FACILITY_ROWS, preparePostgresData } from './prepare-postgres-data.ts';
import { measureReloadUnderLoad, type ReloadUnderLoadRun } from './reload-under-load.ts';

const SERVER_CORE = 0;
const WRK_CORE = 1;
const API_KEY = 'bench-reader-key-0000000000000000000001';
const OPERATOR_KEY = 'bench-operator-key-00000000000000000001';
const RESULTS_PATH = join(REPO_DIR, 'bench/relay-postgres/results/latest.json');
const RECORDS = '/v1/datasets/facilities/entities/facilities/records';

interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly path: string;
  readonly rows: number;
  readonly targetRatio: number;
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'live-eq-10-rows',
    description: 'live equality filter on an indexed column, 10 rows (`?district=district-07&limit=10`)',
    path: `${RECORDS}?district=district-07&limit=10`,
    rows: 10,
    targetRatio: 0.25,
  },
  {
    name: 'snapshot-eq-10-rows',
    description: 'reference: the same read on the same table loaded as a snapshot (in memory)',
    path: '/v1/datasets/facilities/entities/facilities_snapshot/records?district=district-07&limit=10',
    rows: 10,
    targetRatio: 0,
  },
  {
    name: 'live-record',
    description: 'live record by primary key (`/records/F0424242`)',
    path: `${RECORDS}/F0424242`,
    rows: 1,
    targetRatio: 0.25,
  },
];

// Not strict: bench/run-all.sh hands every runner the same arguments, some of them another runner's.
const { values: options } = parseArgs({
  strict: false,
  options: {
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    'load-runs': { type: 'string', default: '3' },
    'skip-load': { type: 'boolean', default: false },
    'skip-live': { type: 'boolean', default: false },
    'skip-reload': { type: 'boolean', default: false },
    'reload-duration': { type: 'string', default: '15' },
    // Pause between the end of one reload and the request for the next.
    pause: { type: 'string', default: '500' },
  },
});
const rounds = Number(options.rounds);
const warmupS = Number(options.warmup);
const durationS = Number(options.duration);
const connections = Number(options.connections);

const session = openBenchSession('relay-postgres');
const { work } = session;
const perfEnabled = instructionsCountable();
const loadAverages: number[] = [];

await session.run(async () => {
  const startedAt = new Date().toISOString();
  const databaseUrl = await preparePostgresData();
  const env = {
    AMBIT_BENCH_READER_HASH: fingerprintOf(API_KEY),
    AMBIT_BENCH_OPERATOR_HASH: fingerprintOf(OPERATOR_KEY),
    AMBIT_BENCH_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef0123',
    AMBIT_BENCH_AUDIT_SECRET: 'bench-audit-secret-0123456789abcdef01234',
    AMBIT_BENCH_AUDIT_PATH: join(work, 'audit', 'audit.jsonl'),
    AMBIT_BENCH_DATABASE_URL: databaseUrl,
  };
  const { scenarios, reload } = options['skip-live']
    ? { scenarios: [], reload: undefined }
    : await measureLive({ ...env, AMBIT_BENCH_ADMIN_BIND: `127.0.0.1:${await freePort()}` }, databaseUrl);
  const load = options['skip-load'] ? [] : await measureLoad(env);
  const results = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineInfo(loadAverages),
    method: { rounds, warmupS, durationS, connections, rows: FACILITY_ROWS },
    scenarios,
    reload,
    load,
  };
  writeResults(RESULTS_PATH, results);
  console.log(`\n${render(scenarios, load)}\n`);
  if (reload !== undefined) console.log(`${renderReload(reload)}\n`);
  console.log(`Results written to ${RESULTS_PATH}`);
  const reloadFailed =
    reload !== undefined &&
    (reload.failed > 0 || reload.reloads.failed > 0 || reload.serverErrors.length > 0);
  if (reloadFailed) console.log('FAILED: requests failed during reloads');
  return reloadFailed ? 1 : 0;
});

async function measureLive(
  env: Record<string, string>,
  databaseUrl: string,
): Promise<{ scenarios: ScenarioResult[]; reload: ReloadUnderLoadRun | undefined }> {
  const relay = await session.start<ServeRelayReport>({
    entry: 'bench/relay-read/serve-relay.ts',
    args: ['bench/relay-postgres/relay-postgres.bench.yaml', `127.0.0.1:${await freePort()}`],
    core: SERVER_CORE,
    env,
  });
  console.log(`live relay ready at ${relay.report.url} (pid ${relay.pid})`);
  const headers = { authorization: `Bearer ${API_KEY}` };
  const bodies = new Map<string, { body: Buffer; contentType: string; etag: string | null }>();
  for (const scenario of SCENARIOS)
    bodies.set(scenario.name, await fetchBody(relay.report.url, scenario, headers));
  const routes: BareRoute[] = SCENARIOS.map((scenario) => {
    const answer = bodies.get(scenario.name) as { body: Buffer; contentType: string };
    // Live answers carry no ETag; the bare server's is a constant that no request matches.
    return {
      url: scenario.path,
      contentType: answer.contentType,
      etag: '"-"',
      bodyBase64: answer.body.toString('base64'),
    };
  });
  const bare = await startBareServer(session, routes, SERVER_CORE);
  const servers: Record<Target, { pid: number; url: string }> = {
    relay: { pid: relay.pid, url: relay.report.url },
    bare: { pid: bare.pid, url: bare.report.url },
  };
  const runs = new Map<string, MeasuredRun[]>(SCENARIOS.map((scenario) => [scenario.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of SCENARIOS) {
      for (const target of alternatingOrder<Target>(round, ['relay', 'bare'])) {
        const run = await measureOnce(scenario, target, servers[target], round, headers);
        runs.get(scenario.name)?.push(run);
        console.log(
          `round ${round} ${scenario.name.padEnd(16)} ${target.padEnd(5)} ${Math.round(run.rps).toString().padStart(6)} rps, ` +
            `${run.cpuUsPerRequest.toFixed(1)} CPU µs/req, p99 ${run.latencyP99Ms?.toFixed(1)} ms`,
        );
      }
    }
  }
  await bare.stop();
  const reload = options['skip-reload']
    ? undefined
    : await reloadUnderLoad(relay.report.url, env, databaseUrl);
  await relay.stop();
  const scenarios = SCENARIOS.map((scenario) => ({
    // The relay-read summary only reads runs and targetRatio; the name is this bench's own.
    name: scenario.name as ScenarioName,
    description: scenario.description,
    path: scenario.path,
    status: 200,
    bodyBytes: bodies.get(scenario.name)?.body.length ?? 0,
    targetRatio: scenario.targetRatio,
    runs: runs.get(scenario.name) ?? [],
  }));
  return { scenarios, reload };
}

/** The snapshot read while the snapshot table reloads from PostgreSQL again and again. */
async function reloadUnderLoad(
  relayUrl: string,
  env: Record<string, string>,
  databaseUrl: string,
): Promise<ReloadUnderLoadRun> {
  const snapshot = SCENARIOS.find((scenario) => scenario.name === 'snapshot-eq-10-rows') as Scenario;
  const scriptPath = join(work, 'reload.lua');
  writeHeaderScript(scriptPath, { authorization: `Bearer ${API_KEY}` });
  const run = await measureReloadUnderLoad({
    relayUrl,
    adminUrl: `http://${env.AMBIT_BENCH_ADMIN_BIND}`,
    operatorKey: OPERATOR_KEY,
    databaseUrl,
    path: snapshot.path,
    datasetId: 'facilities',
    tableId: 'facilities_snapshot',
    scriptPath,
    connections,
    core: WRK_CORE,
    durationS: Number(options['reload-duration']),
    pauseMs: Number(options.pause),
  });
  console.log(
    `reload under load: ${Math.round(run.rps)} rps, failed ${run.failed}, ` +
      `reloads ok ${run.reloads.ok} failed ${run.reloads.failed}`,
  );
  return run;
}

function renderReload(run: ReloadUnderLoadRun): string {
  const durations = run.reloads.durationsMs;
  return [
    ...markdownTable(
      columns(
        'reads under reloads',
        'rps:',
        'p99 ms:',
        'failed requests:',
        'reloads applied:',
        'reloads failed:',
        'reload ms (median, range)',
      ),
      [
        [
          'snapshot-eq-10-rows',
          Math.round(run.rps).toLocaleString('en'),
          run.latencyP99Ms?.toFixed(1) ?? '-',
          String(run.failed),
          String(run.reloads.ok),
          String(run.reloads.failed),
          `${median([...durations]).toFixed(0)} (${Math.min(...durations).toFixed(0)}–${Math.max(...durations).toFixed(0)})`,
        ],
      ],
    ),
    '',
    `5xx responses counted by the relay's own metrics: ${run.serverErrors.length === 0 ? 'none' : run.serverErrors.join('; ')}`,
  ].join('\n');
}

async function measureOnce(
  scenario: Scenario,
  target: Target,
  server: { pid: number; url: string },
  round: number,
  headers: Record<string, string>,
): Promise<MeasuredRun> {
  const scriptPath = join(work, `${scenario.name}.lua`);
  writeHeaderScript(scriptPath, headers);
  const measurement = await measureWrkRun({
    url: server.url + scenario.path,
    scriptPath,
    connections,
    core: WRK_CORE,
    warmupS,
    durationS,
    check: () => fetchBody(server.url, scenario, headers),
    loadAverages,
    count: {
      pids: [server.pid],
      perfEnabled,
      perfOutputPath: () => join(work, `perf-${scenario.name}-${target}-${round}.txt`),
    },
  });
  return measuredRun(round, target, measurement);
}

/** The 200 answer of a scenario, checked for its row count (a record read is one row). */
async function fetchBody(
  baseUrl: string,
  scenario: Scenario,
  headers: Record<string, string>,
): Promise<{ body: Buffer; contentType: string; etag: string | null }> {
  const response = await fetch(baseUrl + scenario.path, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200)
    throw new Error(`${scenario.name}: ${baseUrl} answered ${response.status}: ${body}`);
  const parsed = JSON.parse(body.toString('utf8')) as { data?: unknown[] };
  const rows = parsed.data?.length ?? 1;
  if (rows !== scenario.rows) throw new Error(`${scenario.name}: ${rows} rows, expected ${scenario.rows}`);
  return {
    body,
    contentType: response.headers.get('content-type') ?? 'application/json',
    etag: response.headers.get('etag'),
  };
}

async function measureLoad(env: Record<string, string>): Promise<ParquetLoadRun[]> {
  const runs: ParquetLoadRun[] = [];
  for (let run = 1; run <= Number(options['load-runs']); run++) {
    const measured = await measureParquetLoad({
      configPath: 'bench/relay-postgres/relay-postgres-load.bench.yaml',
      bind: `127.0.0.1:${await freePort()}`,
      env: { ...env, AMBIT_BENCH_AUDIT_PATH: join(work, 'audit-load', `run-${run}.jsonl`) },
      core: SERVER_CORE,
    });
    console.log(
      `snapshot load ${run}: ready after ${(measured.readyMs / 1000).toFixed(2)} s ` +
        `(startRelay ${(measured.loadMs / 1000).toFixed(2)} s), RSS ${(measured.rssBytes / 1e6).toFixed(0)} MB`,
    );
    runs.push(measured);
  }
  return runs;
}

function render(scenarios: readonly ScenarioResult[], load: readonly ParquetLoadRun[]): string {
  const lines = [
    `PostgreSQL bench (node ${process.version}, ${cpus().length} CPUs, load average ${loadAverages.length === 0 ? 'n/a' : `${Math.min(...loadAverages).toFixed(2)}–${Math.max(...loadAverages).toFixed(2)}`})`,
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
        'p99 ms relay / bare:',
      ),
      scenarios.map((scenario) => {
        const s = summarizeScenario(scenario);
        const p99 = (target: Target) =>
          median(
            scenario.runs.filter((run) => run.target === target).map((run) => run.latencyP99Ms ?? Number.NaN),
          ).toFixed(1);
        const reference = scenario.targetRatio === 0;
        return [
          scenario.name,
          String(scenario.bodyBytes),
          String(Math.round(s.relayRps)),
          String(Math.round(s.bareRps)),
          ratioCell(s.ratio, s.ratios),
          reference ? 'reference' : `≥ ${percent(scenario.targetRatio)}`,
          reference ? '–' : s.met ? 'yes' : 'NO',
          `${s.relayCpuUsPerRequest.toFixed(1)} / ${s.bareCpuUsPerRequest.toFixed(1)}`,
          `${p99('relay')} / ${p99('bare')}`,
        ];
      }),
    ),
  ];
  if (load.length > 0) {
    const readyMedian = median(load.map((run) => run.readyMs));
    lines.push(
      '',
      `Snapshot load of ${FACILITY_ROWS.toLocaleString('en-US')} rows × 7 columns: median spawn → /ready 200 ` +
        `${(readyMedian / 1000).toFixed(2)} s (target ≤ 10 s: ${readyMedian <= 10_000 ? 'met' : 'MISSED'}).`,
      '',
      ...loadRunsTable(load),
    );
  }
  return lines.join('\n');
}

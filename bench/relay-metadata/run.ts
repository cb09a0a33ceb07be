// Relay metadata bench: 304 revalidation (and cached 200) throughput of /metadata documents against bare
// node:http answering the same bytes, in interleaved wrk rounds; then the time to publish the demo manifest.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import type { BareRoute } from '../relay-read/bare-server.ts';
import { instructionsCountable } from '../relay-read/count-process-work.ts';
import { writeHeaderScript } from '../relay-read/run-wrk.ts';
import type { ServeRelayReport } from '../relay-read/serve-relay.ts';
import { REPO_DIR } from '../relay-read/start-bench-process.ts';
import { machineInfo, openBenchSession, writeResults } from '../shared/bench-session.ts';
import { freePort } from '../shared/free-port.ts';
import { columns, markdownTable, percent, ratioCell } from '../shared/markdown.ts';
import { measureWrkRun } from '../shared/measure-wrk-run.ts';
import { alternatingOrder, median, pairedRatios } from '../shared/round-statistics.ts';
import { startBareServer } from '../shared/start-bare-server.ts';
import type { PublishReport } from './measure-publish.ts';

const SERVER_CORE = 0;
const WRK_CORE = 1;
const CONFIG = 'demo/relay.yaml';
const MANIFEST = 'demo/relay.metadata.yaml';
const RESULTS_PATH = join(REPO_DIR, 'bench/relay-metadata/results/latest.json');
const TARGET_304_RATIO = 0.5;
const TARGET_PUBLISH_MS = 2000;
const PERSONAS = [
  'catalog_viewer',
  'caseworker',
  'analyst',
  'health_planner',
  'verifier_service',
  'operator',
];
const keyOf = (persona: string) => `bench-${persona.replaceAll('_', '-')}-key-0000000000000000001`;

// Not strict: bench/run-all.sh passes the same arguments to every scenario, and some are not ours.
const { values: parsed } = parseArgs({
  strict: false,
  options: {
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    'publish-runs': { type: 'string', default: '5' },
  },
});
const rounds = Number(parsed.rounds);
const connections = Number(parsed.connections);
const warmupS = Number(parsed.warmup);
const durationS = Number(parsed.duration);
const publishRuns = Number(parsed['publish-runs']);

interface Scenario {
  readonly name: string;
  readonly path: string;
  readonly description: string;
  readonly status: 200 | 304;
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'dcat-304', path: '/metadata/dcat', description: 'DCAT-AP JSON-LD revalidated', status: 304 },
  {
    name: 'offerings-304',
    path: '/metadata/evidence-offerings',
    description: 'evidence offerings revalidated',
    status: 304,
  },
  {
    name: 'dcat-200',
    path: '/metadata/dcat',
    description: 'DCAT-AP JSON-LD, rendered once and reused',
    status: 200,
  },
];

interface Run {
  readonly round: number;
  readonly target: 'relay' | 'bare';
  readonly rps: number;
  readonly latencyP50Ms: number | undefined;
  readonly cpuUsPerRequest: number;
}

const session = openBenchSession('relay-metadata');
const { work } = session;
const env: Record<string, string> = {
  AMBIT_DEMO_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef0123',
  AMBIT_DEMO_AUDIT_SECRET: 'bench-audit-secret-0123456789abcdef01234',
  AMBIT_DEMO_STATE_DIR: join(work, 'state'),
  ...Object.fromEntries(
    PERSONAS.map((persona) => [`AMBIT_DEMO_${persona.toUpperCase()}_HASH`, fingerprintOf(keyOf(persona))]),
  ),
};
const loadAverages: number[] = [];

await session.run(async () => {
  const startedAt = new Date().toISOString();
  const throughput = await measureThroughput();
  const publish = await measurePublish();
  const results = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineInfo(loadAverages),
    method: { rounds, warmupS, durationS, connections },
    throughput,
    publish,
  };
  writeResults(RESULTS_PATH, results);
  console.log(`\n${render(throughput, publish)}\nResults written to ${RESULTS_PATH}`);
});

async function measureThroughput() {
  const relay = await session.start<ServeRelayReport>({
    entry: 'bench/relay-read/serve-relay.ts',
    args: [CONFIG, `127.0.0.1:${await freePort()}`],
    core: SERVER_CORE,
    env,
  });
  const auth = { authorization: `Bearer ${keyOf('catalog_viewer')}` };
  const routes: BareRoute[] = [];
  const etags = new Map<string, string>();
  for (const path of new Set(SCENARIOS.map((scenario) => scenario.path))) {
    const first = await fetch(relay.report.url + path, { headers: auth });
    const body = Buffer.from(await first.arrayBuffer());
    const etag = first.headers.get('etag');
    const contentType = first.headers.get('content-type');
    if (first.status !== 200 || !etag || !contentType)
      throw new Error(`${path} answered ${first.status}: ${body}`);
    etags.set(path, etag);
    routes.push({ url: path, contentType, etag, bodyBase64: body.toString('base64') });
  }
  const bare = await startBareServer(session, routes, SERVER_CORE);
  const servers = { relay: relay.report.url, bare: bare.report.url };
  const pids = { relay: relay.pid, bare: bare.pid };
  const perf = instructionsCountable();
  const runs = new Map<string, Run[]>(SCENARIOS.map((scenario) => [scenario.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of SCENARIOS) {
      const headers =
        scenario.status === 304 ? { ...auth, 'if-none-match': etags.get(scenario.path) as string } : auth;
      for (const target of alternatingOrder(round, ['relay', 'bare'] as const)) {
        const url = servers[target] + scenario.path;
        const check = await fetch(url, { headers });
        if (check.status !== scenario.status)
          throw new Error(`${target} answered ${check.status} for ${scenario.name}`);
        await check.arrayBuffer();
        const scriptPath = join(work, `${scenario.name}.lua`);
        writeHeaderScript(scriptPath, headers);
        const { result, ...used } = await measureWrkRun({
          url,
          scriptPath,
          connections,
          core: WRK_CORE,
          warmupS,
          durationS,
          loadAverages,
          count: { pids: [pids[target]], perfEnabled: perf, perfOutputPath: () => join(work, 'perf.txt') },
        });
        const cpuUsPerRequest = (used.cpuMs * 1000) / Math.max(1, result.requests);
        runs
          .get(scenario.name)
          ?.push({ round, target, rps: result.rps, latencyP50Ms: result.latencyP50Ms, cpuUsPerRequest });
        console.log(
          `round ${round} ${scenario.name.padEnd(14)} ${target.padEnd(5)} ${Math.round(result.rps)} rps, ${Math.round(cpuUsPerRequest)} µs CPU/req`,
        );
      }
    }
  }
  await bare.stop();
  await relay.stop();
  return SCENARIOS.map((scenario) => {
    const all = runs.get(scenario.name) ?? [];
    const side = (target: 'relay' | 'bare') => all.filter((run) => run.target === target);
    const ratios = pairedRatios(side('relay'), side('bare'));
    return {
      ...scenario,
      runs: all,
      relayRps: median(side('relay').map((run) => run.rps)),
      bareRps: median(side('bare').map((run) => run.rps)),
      relayCpuUs: median(side('relay').map((run) => run.cpuUsPerRequest)),
      bareCpuUs: median(side('bare').map((run) => run.cpuUsPerRequest)),
      ratios,
      ratio: median(ratios),
    };
  });
}

async function measurePublish() {
  const inProcess = await session.start<PublishReport>({
    entry: 'bench/relay-metadata/measure-publish.ts',
    args: [MANIFEST, '10'],
    core: SERVER_CORE,
  });
  await inProcess.stop();
  // The whole command as a user runs it: Node start, TypeScript loading, publish, exit.
  const cliMs: number[] = [];
  for (let run = 0; run < publishRuns; run++) {
    const out = join(work, `site-${run}`);
    const start = performance.now();
    const result = spawnSync(
      'taskset',
      [
        '-c',
        String(SERVER_CORE),
        process.execPath,
        'bin/ambit.js',
        'metadata',
        'publish',
        '--manifest',
        MANIFEST,
        '--out',
        out,
      ],
      { cwd: REPO_DIR, encoding: 'utf8' },
    );
    cliMs.push(performance.now() - start);
    if (result.status !== 0) throw new Error(`ambit metadata publish failed: ${result.stderr}`);
    console.log(`publish run ${run + 1}: ${Math.round(cliMs.at(-1) as number)} ms (whole command)`);
  }
  const report = inProcess.report;
  return {
    files: report.files,
    bytes: report.bytes,
    coldMs: report.coldMs,
    warmMedianMs: median(report.warmMs),
    warmCpuMedianMs: median(report.warmCpuMs),
    cliMs,
    cliMedianMs: median(cliMs),
  };
}

function render(
  throughput: Awaited<ReturnType<typeof measureThroughput>>,
  publish: Awaited<ReturnType<typeof measurePublish>>,
): string {
  const lines = [
    ...markdownTable(
      columns(
        'scenario',
        'relay rps:',
        'bare rps:',
        'relay/bare (per round)',
        'target:',
        'met',
        'CPU µs/req relay / bare:',
        'CPU ratio:',
      ),
      throughput.map((s) => {
        const gated = s.status === 304;
        return [
          s.name,
          String(Math.round(s.relayRps)),
          String(Math.round(s.bareRps)),
          ratioCell(s.ratio, s.ratios),
          gated ? `≥ ${percent(TARGET_304_RATIO)}` : '-',
          gated ? (s.ratio >= TARGET_304_RATIO ? 'yes' : 'no') : '-',
          `${Math.round(s.relayCpuUs)} / ${Math.round(s.bareCpuUs)}`,
          percent(s.bareCpuUs / s.relayCpuUs),
        ];
      }),
    ),
    '',
    `Publishing ${MANIFEST} (${publish.files} files, ${publish.bytes.toLocaleString('en')} B): first run in a process ${Math.round(publish.coldMs)} ms, ` +
      `then median ${publish.warmMedianMs.toFixed(1)} ms (CPU ${publish.warmCpuMedianMs.toFixed(1)} ms); ` +
      `whole \`ambit metadata publish\` command median ${Math.round(publish.cliMedianMs)} ms ` +
      `(${publish.cliMs.map((ms) => Math.round(ms)).join(' / ')}); target < ${TARGET_PUBLISH_MS} ms: ` +
      `${publish.cliMedianMs < TARGET_PUBLISH_MS ? 'met' : 'missed'} for the command, ${publish.coldMs < TARGET_PUBLISH_MS ? 'met' : 'missed'} for the publish itself.`,
  ];
  return lines.join('\n');
}

// Relay metadata bench: 304 revalidation (and cached 200) throughput of /metadata documents against bare
// node:http answering the same bytes, in interleaved wrk rounds; then the time to publish the demo manifest.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import type { BareRoute } from '../relay-read/bare-server.ts';
import { countProcessWork, instructionsCountable } from '../relay-read/count-process-work.ts';
import { runWrk, writeHeaderScript } from '../relay-read/run-wrk.ts';
import type { ServeRelayReport } from '../relay-read/serve-relay.ts';
import { type BenchProcess, REPO_DIR, startBenchProcess } from '../relay-read/start-bench-process.ts';
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

const work = mkdtempSync(join(tmpdir(), 'ambit-bench-relay-metadata-'));
const env: Record<string, string> = {
  AMBIT_DEMO_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef0123',
  AMBIT_DEMO_AUDIT_SECRET: 'bench-audit-secret-0123456789abcdef01234',
  AMBIT_DEMO_STATE_DIR: join(work, 'state'),
  ...Object.fromEntries(
    PERSONAS.map((persona) => [`AMBIT_DEMO_${persona.toUpperCase()}_HASH`, fingerprintOf(keyOf(persona))]),
  ),
};
const children: BenchProcess<unknown>[] = [];
const loadAverages: number[] = [];
let exitCode = 0;

try {
  const startedAt = new Date().toISOString();
  const throughput = await measureThroughput();
  const publish = await measurePublish();
  const results = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      loadAverages,
    },
    method: { rounds, warmupS, durationS, connections },
    throughput,
    publish,
  };
  mkdirSync(join(RESULTS_PATH, '..'), { recursive: true });
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\n${render(throughput, publish)}\nResults written to ${RESULTS_PATH}`);
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  exitCode = 1;
} finally {
  for (const child of children) await child.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(exitCode);

async function measureThroughput() {
  const relay = await startBenchProcess<ServeRelayReport>({
    entry: 'bench/relay-read/serve-relay.ts',
    args: [CONFIG, `127.0.0.1:${await freePort()}`],
    core: SERVER_CORE,
    env,
  });
  children.push(relay);
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
  const routesPath = join(work, 'bare-routes.json');
  writeFileSync(routesPath, JSON.stringify(routes));
  const bare = await startBenchProcess<{ url: string; pid: number }>({
    entry: 'bench/relay-read/bare-server.ts',
    args: [routesPath, `127.0.0.1:${await freePort()}`],
    core: SERVER_CORE,
  });
  children.push(bare);
  const servers = { relay: relay.report.url, bare: bare.report.url };
  const pids = { relay: relay.pid, bare: bare.pid };
  const perf = instructionsCountable();
  const runs = new Map<string, Run[]>(SCENARIOS.map((scenario) => [scenario.name, []]));
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? (['relay', 'bare'] as const) : (['bare', 'relay'] as const);
    for (const scenario of SCENARIOS) {
      const headers =
        scenario.status === 304 ? { ...auth, 'if-none-match': etags.get(scenario.path) as string } : auth;
      for (const target of order) {
        const url = servers[target] + scenario.path;
        const check = await fetch(url, { headers });
        if (check.status !== scenario.status)
          throw new Error(`${target} answered ${check.status} for ${scenario.name}`);
        await check.arrayBuffer();
        const scriptPath = join(work, `${scenario.name}.lua`);
        writeHeaderScript(scriptPath, headers);
        const wrk = { url, scriptPath, connections, core: WRK_CORE };
        await runWrk({ ...wrk, durationS: warmupS });
        loadAverages.push(loadavg()[0] as number);
        const counter = await countProcessWork(pids[target], {
          enabled: perf,
          outputPath: join(work, 'perf.txt'),
        });
        const result = await runWrk({ ...wrk, durationS });
        const used = await counter.stop();
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
    const of = (round: number, target: 'relay' | 'bare') =>
      all.find((run) => run.round === round && run.target === target);
    const ratios = Array.from(
      { length: rounds },
      (_, i) => (of(i + 1, 'relay')?.rps ?? 0) / (of(i + 1, 'bare')?.rps ?? 1),
    );
    const side = (target: 'relay' | 'bare') => all.filter((run) => run.target === target);
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
  const inProcess = await startBenchProcess<PublishReport>({
    entry: 'bench/relay-metadata/measure-publish.ts',
    args: [MANIFEST, '10'],
    core: SERVER_CORE,
  });
  children.push(inProcess);
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
    '| scenario | relay rps | bare rps | relay/bare (per round) | target | met | CPU µs/req relay / bare | CPU ratio |',
    '|---|---:|---:|---|---:|---|---:|---:|',
    ...throughput.map((s) => {
      const gated = s.status === 304;
      return `| ${s.name} | ${Math.round(s.relayRps)} | ${Math.round(s.bareRps)} | **${pct(s.ratio)}** (${s.ratios.map(pct).join(' / ')}) | ${gated ? `≥ ${pct(TARGET_304_RATIO)}` : '-'} | ${gated ? (s.ratio >= TARGET_304_RATIO ? 'yes' : 'no') : '-'} | ${Math.round(s.relayCpuUs)} / ${Math.round(s.bareCpuUs)} | ${pct(s.bareCpuUs / s.relayCpuUs)} |`;
    }),
    '',
    `Publishing ${MANIFEST} (${publish.files} files, ${publish.bytes.toLocaleString('en')} B): first run in a process ${Math.round(publish.coldMs)} ms, ` +
      `then median ${publish.warmMedianMs.toFixed(1)} ms (CPU ${publish.warmCpuMedianMs.toFixed(1)} ms); ` +
      `whole \`ambit metadata publish\` command median ${Math.round(publish.cliMedianMs)} ms ` +
      `(${publish.cliMs.map((ms) => Math.round(ms)).join(' / ')}); target < ${TARGET_PUBLISH_MS} ms: ` +
      `${publish.cliMedianMs < TARGET_PUBLISH_MS ? 'met' : 'missed'} for the command, ${publish.coldMs < TARGET_PUBLISH_MS ? 'met' : 'missed'} for the publish itself.`,
  ];
  return lines.join('\n');
}

function pct(value: number): string {
  return `${Math.round(value * 100)}%`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

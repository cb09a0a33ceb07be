// Relay aggregate bench: in-process execution time on 1,000,000 rows, then 304 (and cached 200) throughput
// against bare node:http on the same bytes, in interleaved wrk rounds.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { writeHeaderScript } from '../relay-read/run-wrk.ts';
import type { ServeRelayReport } from '../relay-read/serve-relay.ts';
import { REPO_DIR } from '../relay-read/start-bench-process.ts';
import { machineInfo, openBenchSession, writeResults } from '../shared/bench-session.ts';
import { freePort } from '../shared/free-port.ts';
import { columns, markdownTable, percent, ratioCell } from '../shared/markdown.ts';
import { measureWrkRun } from '../shared/measure-wrk-run.ts';
import { alternatingOrder, median, pairedRatios } from '../shared/round-statistics.ts';
import { startBareServer } from '../shared/start-bare-server.ts';
import { generateAggregateData } from './generate-aggregate-data.ts';
import type { ExecutionReport } from './measure-execution.ts';

const SERVER_CORE = 0;
const WRK_CORE = 1;
const API_KEY = 'bench-analyst-key-000000000000000000001';
const CONFIG = 'bench/relay-aggregate/relay-aggregate.bench.yaml';
const RESULTS_PATH = join(REPO_DIR, 'bench/relay-aggregate/results/latest.json');
const PATH = '/v1/datasets/bench/aggregates/payments_by_district_month';
/** Server-side execution budget per request, and the 304 throughput floor relative to bare node:http. */
const TARGET_EXECUTION_MS = 20;
const TARGET_304_RATIO = 0.5;

// Not strict: bench/run-all.sh passes the same arguments to every scenario, and some are not ours.
const { values: parsed } = parseArgs({
  strict: false,
  options: {
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    runs: { type: 'string', default: '30' },
  },
});
const options = {
  rounds: String(parsed.rounds),
  warmup: String(parsed.warmup),
  duration: String(parsed.duration),
  connections: String(parsed.connections),
  runs: String(parsed.runs),
};
const rounds = Number(options.rounds);
const connections = Number(options.connections);

interface Scenario {
  readonly name: 'not-modified-304' | 'cached-200';
  readonly description: string;
  readonly headers: Record<string, string>;
  readonly status: 200 | 304;
}

interface WrkRun {
  readonly round: number;
  readonly target: 'relay' | 'bare';
  readonly rps: number;
  readonly latencyP50Ms: number | undefined;
}

const session = openBenchSession('relay-aggregate');
const { work } = session;
const env = {
  AMBIT_BENCH_READER_HASH: fingerprintOf(API_KEY),
  AMBIT_BENCH_API_KEY: API_KEY,
  AMBIT_BENCH_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef0123',
  AMBIT_BENCH_AUDIT_SECRET: 'bench-audit-secret-0123456789abcdef01234',
  AMBIT_BENCH_AUDIT_PATH: join(work, 'audit', 'audit.jsonl'),
};
const loadAverages: number[] = [];

await session.run(async () => {
  const startedAt = new Date().toISOString();
  generateAggregateData();
  const execution = await measureExecution();
  const throughput = await measureThroughput();
  const results = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineInfo(loadAverages),
    method: { rounds, warmupS: Number(options.warmup), durationS: Number(options.duration), connections },
    execution,
    throughput,
  };
  writeResults(RESULTS_PATH, results);
  console.log(`\n${render(execution, throughput)}\nResults written to ${RESULTS_PATH}`);
});

async function measureExecution(): Promise<ExecutionReport> {
  const child = await session.start<ExecutionReport>({
    entry: 'bench/relay-aggregate/measure-execution.ts',
    args: [CONFIG, options.runs],
    core: SERVER_CORE,
    env,
    readyTimeoutMs: 300_000,
  });
  await child.stop();
  for (const timing of child.report.execution) {
    console.log(
      `${timing.name.padEnd(13)} cold ${timing.coldMs.toFixed(1)} ms, median ${timing.medianMs.toFixed(2)} ms, ` +
        `p90 ${timing.p90Ms.toFixed(2)} ms, CPU ${timing.cpuMedianMs.toFixed(2)} ms (${timing.groups} groups)`,
    );
  }
  return child.report;
}

async function measureThroughput() {
  const relay = await session.start<ServeRelayReport>({
    entry: 'bench/relay-read/serve-relay.ts',
    args: [CONFIG, `127.0.0.1:${await freePort()}`],
    core: SERVER_CORE,
    env,
    readyTimeoutMs: 300_000,
  });
  const auth = { authorization: `Bearer ${API_KEY}` };
  const first = await fetch(relay.report.url + PATH, { headers: auth });
  const body = Buffer.from(await first.arrayBuffer());
  const etag = first.headers.get('etag');
  const contentType = first.headers.get('content-type');
  if (first.status !== 200 || !etag || !contentType)
    throw new Error(`aggregate answered ${first.status}: ${body}`);
  const bare = await startBareServer(
    session,
    [{ url: PATH, contentType, etag, bodyBase64: body.toString('base64') }],
    SERVER_CORE,
  );
  const scenarios: Scenario[] = [
    {
      name: 'not-modified-304',
      description: 'the aggregate revalidated with If-None-Match (304, no body)',
      headers: { ...auth, 'if-none-match': etag },
      status: 304,
    },
    {
      name: 'cached-200',
      description: `the same aggregate again, answered from the rendered-answer cache (200, ${body.length} B)`,
      headers: auth,
      status: 200,
    },
  ];
  const servers = { relay: relay.report.url, bare: bare.report.url };
  const runs = new Map<string, WrkRun[]>(scenarios.map((s) => [s.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of scenarios) {
      for (const target of alternatingOrder(round, ['relay', 'bare'] as const)) {
        const url = servers[target] + PATH;
        const check = await fetch(url, { headers: scenario.headers });
        if (check.status !== scenario.status)
          throw new Error(`${target} answered ${check.status} for ${scenario.name}`);
        await check.arrayBuffer();
        const scriptPath = join(work, `${scenario.name}.lua`);
        writeHeaderScript(scriptPath, scenario.headers);
        const { result } = await measureWrkRun({
          url,
          scriptPath,
          connections,
          core: WRK_CORE,
          warmupS: Number(options.warmup),
          durationS: Number(options.duration),
          loadAverages,
        });
        runs.get(scenario.name)?.push({ round, target, rps: result.rps, latencyP50Ms: result.latencyP50Ms });
        console.log(
          `round ${round} ${scenario.name.padEnd(16)} ${target.padEnd(5)} ${Math.round(result.rps)} rps`,
        );
      }
    }
  }
  await bare.stop();
  await relay.stop();
  return scenarios.map((scenario) => {
    const all = runs.get(scenario.name) ?? [];
    const side = (target: 'relay' | 'bare') => all.filter((run) => run.target === target);
    const ratios = pairedRatios(side('relay'), side('bare'));
    return {
      name: scenario.name,
      description: scenario.description,
      status: scenario.status,
      runs: all,
      relayRps: median(side('relay').map((run) => run.rps)),
      bareRps: median(side('bare').map((run) => run.rps)),
      ratios,
      ratio: median(ratios),
    };
  });
}

function render(
  execution: ExecutionReport,
  throughput: Awaited<ReturnType<typeof measureThroughput>>,
): string {
  const ms = (value: number) => value.toFixed(2);
  const lines = [
    `Source: ${execution.rows.toLocaleString('en')} rows, loaded in ${(execution.loadMs / 1000).toFixed(1)} s.`,
    '',
    ...markdownTable(
      columns(
        'execution',
        'groups:',
        'cold ms:',
        'median ms:',
        'p90 ms:',
        'median CPU ms:',
        'target:',
        'met',
      ),
      execution.execution.map((t) => [
        t.name,
        String(t.groups),
        ms(t.coldMs),
        ms(t.medianMs),
        ms(t.p90Ms),
        ms(t.cpuMedianMs),
        `≤ ${TARGET_EXECUTION_MS} ms`,
        t.medianMs <= TARGET_EXECUTION_MS ? 'yes' : 'no',
      ]),
    ),
    '',
    `Whole in-process GET (auth, execution, JSON rendering, audit; no answer reuse): median ${ms(execution.request.medianMs)} ms, ${execution.request.bodyBytes} B.`,
    '',
    ...markdownTable(
      columns('throughput', 'relay rps:', 'bare rps:', 'relay/bare (per round)', 'target:', 'met'),
      throughput.map((s) => {
        const gated = s.name === 'not-modified-304';
        return [
          s.name,
          String(Math.round(s.relayRps)),
          String(Math.round(s.bareRps)),
          ratioCell(s.ratio, s.ratios),
          gated ? `≥ ${percent(TARGET_304_RATIO)}` : '-',
          gated ? (s.ratio >= TARGET_304_RATIO ? 'yes' : 'no') : '-',
        ];
      }),
    ),
  ];
  return lines.join('\n');
}

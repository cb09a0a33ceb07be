// Relay reload bench: wrk reads while the admin listener reloads the table again and again, with the data
// alternating between two versions. Counts failed requests (there must be none) and compares throughput with a
// steady relay and with bare node:http in the same rounds.
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { generateBenchData, householdCode } from '../data/generate-bench-data.ts';
import { failedRequests, runWrkCounting, type WrkResult, writeHeaderScript } from '../relay-read/run-wrk.ts';
import type { ServeRelayReport } from '../relay-read/serve-relay.ts';
import { REPO_DIR } from '../relay-read/start-bench-process.ts';
import { openBenchSession, writeResults } from '../shared/bench-session.ts';
import { freePort } from '../shared/free-port.ts';
import { columns, markdownTable } from '../shared/markdown.ts';
import { type ReloadOutcome, serverErrorSeries, startReloadLoop } from '../shared/reload-loop.ts';
import { alternatingOrder, median, pairedRatios } from '../shared/round-statistics.ts';
import { startBareServer } from '../shared/start-bare-server.ts';

const SERVER_CORE = 0;
const WRK_CORE = 1;
const READER_KEY = 'bench-reader-key-0000000000000000000001';
const OPERATOR_KEY = 'bench-operator-key-00000000000000000001';
const PATH = `/v1/datasets/bench/entities/records/records?household_code=${householdCode(4242)}`;
const RESULTS_PATH = join(REPO_DIR, 'bench/relay-reload/results/latest.json');

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    // Pause between the end of one reload and the next request for one.
    pause: { type: 'string', default: '500' },
  },
});
const rounds = Number(options.rounds);
const warmupS = Number(options.warmup);
const durationS = Number(options.duration);
const connections = Number(options.connections);
const pauseMs = Number(options.pause);

interface Run {
  readonly round: number;
  readonly server: 'bare' | 'relay' | 'relay+reloads';
  readonly rps: number;
  readonly requests: number;
  readonly latencyP50Ms: number | undefined;
  readonly latencyP99Ms: number | undefined;
  /** Non-2xx/3xx responses plus socket errors: the number this bench is about. */
  readonly failed: number;
  readonly reloads?: ReloadOutcome;
}

const session = openBenchSession('relay-reload');
const { work } = session;
await session.run(async () => {
  const files = generateBenchData();
  // Version A is the generated file; version B adds one record, so every reload swaps in a new generation.
  const versionA = join(work, 'records-a.csv');
  const versionB = join(work, 'records-b.csv');
  copyFileSync(files.records100k, versionA);
  const extra = 'R9999999,HH99999,Extra,Record,north,1990-01-01,1,100.5,true\n';
  writeFileSync(versionB, readFileSync(versionA, 'utf8') + extra);
  const served = join(work, 'records.csv');
  copyFileSync(versionA, served);

  const adminPort = await freePort();
  const relay = await session.start<ServeRelayReport>({
    entry: 'bench/relay-read/serve-relay.ts',
    args: ['bench/relay-reload/relay-reload.bench.yaml', `127.0.0.1:${await freePort()}`],
    core: SERVER_CORE,
    env: {
      AMBIT_BENCH_READER_HASH: fingerprintOf(READER_KEY),
      AMBIT_BENCH_OPERATOR_HASH: fingerprintOf(OPERATOR_KEY),
      AMBIT_BENCH_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef0123',
      AMBIT_BENCH_AUDIT_SECRET: 'bench-audit-secret-0123456789abcdef01234',
      AMBIT_BENCH_AUDIT_PATH: join(work, 'audit', 'audit.jsonl'),
      AMBIT_BENCH_RECORDS_PATH: served,
      AMBIT_BENCH_ADMIN_BIND: `127.0.0.1:${adminPort}`,
    },
  });
  const relayUrl = relay.report.url;
  const adminUrl = `http://127.0.0.1:${adminPort}`;

  const answer = await fetch(`${relayUrl}${PATH}`, { headers: { authorization: `Bearer ${READER_KEY}` } });
  if (answer.status !== 200) throw new Error(`relay answered ${answer.status}`);
  const body = Buffer.from(await answer.arrayBuffer());
  const route = {
    url: PATH,
    contentType: answer.headers.get('content-type') ?? 'application/json',
    etag: answer.headers.get('etag') ?? '',
    bodyBase64: body.toString('base64'),
  };
  const bare = await startBareServer(session, [route], SERVER_CORE);

  const script = join(work, 'headers.lua');
  writeHeaderScript(script, { authorization: `Bearer ${READER_KEY}` });
  // An atomic replace, as an operator's export job would do it: B, A, B... across every run, so each reload
  // finds the other version.
  let swaps = 0;
  const swapData = () => {
    swaps++;
    const staged = `${served}.staged`;
    copyFileSync(swaps % 2 === 1 ? versionB : versionA, staged);
    renameSync(staged, served);
  };

  const runs: Run[] = [];
  const loads: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const server of alternatingOrder<Run['server']>(round, ['bare', 'relay', 'relay+reloads'])) {
      const url = `${server === 'bare' ? bare.report.url : relayUrl}${PATH}`;
      await wrk(url, script, warmupS);
      loads.push(loadavg()[0] as number);
      const reloads =
        server === 'relay+reloads'
          ? startReloadLoop({
              url: `${adminUrl}/admin/v1/reload`,
              operatorKey: OPERATOR_KEY,
              pauseMs,
              prepare: swapData,
            })
          : undefined;
      const result = await wrk(url, script, durationS);
      const reloadResult = await reloads?.stop();
      const run: Run = {
        round,
        server,
        rps: result.rps,
        requests: result.requests,
        latencyP50Ms: result.latencyP50Ms,
        latencyP99Ms: result.latencyP99Ms,
        failed: failedRequests(result),
        ...(reloadResult ? { reloads: reloadResult } : {}),
      };
      runs.push(run);
      console.log(
        `round ${round} ${server}: ${Math.round(run.rps)} rps, failed ${run.failed}, p99 ${run.latencyP99Ms} ms` +
          (reloadResult ? `, reloads ok ${reloadResult.ok} failed ${reloadResult.failed}` : ''),
      );
    }
  }
  const serverErrors = await serverErrorSeries(adminUrl, OPERATOR_KEY);
  const summary = summarize(runs, serverErrors, loads);
  writeResults(RESULTS_PATH, { runs, loads, summary });
  console.log(summary.table);
  if (summary.failed > 0 || summary.reloadsFailed > 0 || serverErrors.length > 0) {
    console.log('FAILED: requests failed during reloads');
    return 1;
  }
  return 0;
});

function wrk(url: string, scriptPath: string, seconds: number): Promise<WrkResult> {
  return runWrkCounting({ url, scriptPath, durationS: seconds, connections, core: WRK_CORE });
}

function summarize(runs: Run[], serverErrors: string[], loads: number[]) {
  const of = (server: Run['server']) => runs.filter((run) => run.server === server);
  const ratios = (over: Run['server'], under: Run['server']) => pairedRatios(of(over), of(under));
  const reloads = of('relay+reloads').flatMap((run) => (run.reloads ? [run.reloads] : []));
  const durations = reloads.flatMap((reload) => reload.durationsMs);
  const failed = runs.reduce((sum, run) => sum + run.failed, 0);
  const reloadsOk = reloads.reduce((sum, reload) => sum + reload.ok, 0);
  const reloadsFailed = reloads.reduce((sum, reload) => sum + reload.failed, 0);
  const requestsUnderReload = of('relay+reloads').reduce((sum, run) => sum + run.requests, 0);
  const pct = (values: number[]) =>
    `${(median(values) * 100).toFixed(0)}% (${values.map((v) => `${(v * 100).toFixed(0)}%`).join(' / ')})`;
  const rps = (server: Run['server']) =>
    Math.round(median(of(server).map((run) => run.rps))).toLocaleString('en');
  const p99 = (server: Run['server']) =>
    median(of(server).map((run) => run.latencyP99Ms ?? Number.NaN)).toFixed(1);
  const table = [
    ...markdownTable(
      columns('server', 'median rps:', 'median p99 ms:', 'failed requests:'),
      (['bare', 'relay', 'relay+reloads'] as const).map((server) => [
        server,
        rps(server),
        p99(server),
        String(of(server).reduce((sum, run) => sum + run.failed, 0)),
      ]),
    ),
    '',
    `relay+reloads ÷ bare (per round): ${pct(ratios('relay+reloads', 'bare'))}`,
    `relay+reloads ÷ steady relay (per round): ${pct(ratios('relay+reloads', 'relay'))}`,
    `relay ÷ bare (per round): ${pct(ratios('relay', 'bare'))}`,
    `reloads: ${reloadsOk} applied, ${reloadsFailed} failed, median ${median(durations).toFixed(0)} ms ` +
      `(${Math.min(...durations).toFixed(0)}-${Math.max(...durations).toFixed(0)} ms), over ${requestsUnderReload.toLocaleString('en')} reads`,
    `5xx responses counted by the relay's own metrics: ${serverErrors.length === 0 ? 'none' : serverErrors.join('; ')}`,
    `one-minute load average during the runs: ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
  ].join('\n');
  return { failed, reloadsOk, reloadsFailed, table };
}

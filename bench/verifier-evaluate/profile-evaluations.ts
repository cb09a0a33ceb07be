// Profiles only the verifier's evaluation path: the verifier in this process under the inspector, alone on core 0;
// the relay child and wrk on core 1. The profiler samples wall time, so the verifier gets a core of its own: on a
// shared core, time the relay runs while the verifier waits would be charged to whatever the verifier was doing.
// Prints where the verifier's main thread spends its time, grouped by the deepest frame of our own code on the
// stack. Usage (after `npm run bench` generated the data):
//   node bin/run-ts.js bench/verifier-evaluate/profile-evaluations.ts [claim=enrolled] [seconds=10] [out.cpuprofile]
// The optional third argument keeps the raw V8 profile (open it in Chrome DevTools' Performance panel).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { loadVerifierConfig } from '../../src/verifier/config/load-verifier-config.ts';
import { startVerifier } from '../../src/verifier/start-verifier.ts';
import { runWrk } from '../relay-read/run-wrk.ts';
import type { ServeRelayReport } from '../relay-read/serve-relay.ts';
import { startBenchProcess } from '../relay-read/start-bench-process.ts';
import { evaluationBody, PURPOSE, subjectIds } from './scenarios.ts';
import { writeRequestScript } from './write-request-script.ts';

const RELAY_KEY = 'bench-reader-key-0000000000000000000001';
const CALLER_KEY = 'bench-verifier-caller-key-000000000001';
const claim = process.argv[2] ?? 'enrolled';
const seconds = Number(process.argv[3] ?? 10);
const profileOut = process.argv[4];
const work = mkdtempSync(join(tmpdir(), 'ambit-profile-verifier-'));
const env = {
  AMBIT_BENCH_READER_HASH: fingerprintOf(RELAY_KEY),
  AMBIT_BENCH_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef0123',
  AMBIT_BENCH_AUDIT_SECRET: 'bench-audit-secret-0123456789abcdef01234',
  AMBIT_BENCH_AUDIT_PATH: join(work, 'relay-audit.jsonl'),
  AMBIT_BENCH_CALLER_HASH: fingerprintOf(CALLER_KEY),
  AMBIT_BENCH_RELAY_TOKEN: RELAY_KEY,
  AMBIT_BENCH_VERIFIER_AUDIT_PATH: join(work, 'verifier-audit.jsonl'),
};
// Every thread of this process (the CEL workers included) on core 0.
spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const relay = await startBenchProcess<ServeRelayReport>({
  entry: 'bench/relay-read/serve-relay.ts',
  args: ['bench/relay-read/relay.bench.yaml', '127.0.0.1:0'],
  core: 1,
  env,
});
const loaded = loadVerifierConfig(new URL('./verifier.bench.yaml', import.meta.url).pathname, {
  ...process.env,
  ...env,
  AMBIT_BENCH_RELAY_URL: relay.report.url,
});
const logger = createLogger({ name: 'profile', level: 'warn' });
const running = await startVerifier(
  loaded,
  { logger, clock: systemClock, random: systemRandom },
  '127.0.0.1:0',
);
const ids = subjectIds(1000);
const script = join(work, 'requests.lua');
writeRequestScript(script, {
  method: 'POST',
  headers: { 'x-api-key': CALLER_KEY, 'content-type': 'application/json', 'data-purpose': PURPOSE },
  paths: ids.map(() => '/v1/evaluations'),
  bodies: ids.map((id) => evaluationBody(id, claim)),
});
const wrk = { url: `${running.url}/`, scriptPath: script, connections: 10, core: 1 };
await runWrk({ ...wrk, durationS: 5 });

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.start');
const result = await runWrk({ ...wrk, durationS: seconds });
const { profile } = await session.post('Profiler.stop');
if (profileOut) writeFileSync(profileOut, JSON.stringify(profile));
// The verifier is not closed: the process exits below, and wrk's last requests may still be in flight.
await relay.stop();

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
const nodes = new Map<number, ProfileNode>((profile.nodes as ProfileNode[]).map((node) => [node.id, node]));
const parents = new Map<number, number>();
for (const node of nodes.values()) for (const child of node.children ?? []) parents.set(child, node.id);
const shares = new Map<string, number>();
let busy = 0;
const samples = profile.samples ?? [];
const deltas = profile.timeDeltas ?? [];
samples.forEach((sampleId, index) => {
  const leaf = nodes.get(sampleId);
  if (!leaf || leaf.callFrame.functionName === '(idle)') return;
  const delta = deltas[index] ?? 0;
  busy += delta;
  // Attribute to the deepest frame of our own code, else to the leaf (Node internals, GC, syscalls).
  let key = `${leaf.callFrame.functionName || '(anonymous)'} [${shortUrl(leaf.callFrame.url) || 'native'}]`;
  for (let id: number | undefined = sampleId; id !== undefined; id = parents.get(id)) {
    const frame = nodes.get(id)?.callFrame;
    if (frame?.url.includes('/src/')) {
      key = `${frame.functionName || '(anonymous)'} [${shortUrl(frame.url)}]`;
      break;
    }
  }
  shares.set(key, (shares.get(key) ?? 0) + delta);
});
console.log(
  `${claim}: ${Math.round(result.rps)} rps; verifier main thread busy ${((busy / 1e6 / seconds) * 100).toFixed(0)}% ` +
    `of the run, ${(busy / result.requests).toFixed(0)} µs per evaluation`,
);
for (const [key, time] of [...shares].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`${((time / busy) * 100).toFixed(1).padStart(5)}%  ${key}`);
}
rmSync(work, { recursive: true, force: true });
process.exit(0);

function shortUrl(url: string): string {
  return url.replace(/^.*\/(src|node_modules)\//, '$1/');
}

// Profiles only the relay's request path: serves the bench config in-process, drives it with wrk, and prints the
// functions with the most self time. Usage (after `npm run bench` generated the data):
//   node bin/run-ts.js bench/relay-read/profile-requests.ts [path?query] [--if-none-match] [--config other.yaml]
// Another bench's config reads its own variables from the environment (the PostgreSQL bench's database URL:
// AMBIT_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/ambit_bench_postgres).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { startRelay } from '../../src/relay/start-relay.ts';

const KEY = 'bench-reader-key-0000000000000000000001';
const path = process.argv[2] ?? '/v1/datasets/bench/entities/records/records?household_code=HH04242';
const conditional = process.argv.includes('--if-none-match');
const configFlag = process.argv.indexOf('--config');
const configPath =
  configFlag > 0
    ? String(process.argv[configFlag + 1])
    : new URL('./relay.bench.yaml', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'ambit-profile-'));
const loaded = loadRelayConfig(configPath, {
  ...process.env,
  AMBIT_BENCH_READER_HASH: fingerprintOf(KEY),
  AMBIT_BENCH_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef0123',
  AMBIT_BENCH_AUDIT_SECRET: 'bench-audit-secret-0123456789abcdef01234',
  AMBIT_BENCH_AUDIT_PATH: join(work, 'audit.jsonl'),
});
const logger = createLogger({ name: 'profile', level: 'warn' });
const running = await startRelay(loaded, { logger, clock: systemClock, random: systemRandom }, '127.0.0.1:0');
const url = `${running.url}${path}`;
const first = await fetch(url, { headers: { authorization: `Bearer ${KEY}` } });
const script = join(work, 'headers.lua');
writeFileSync(
  script,
  `wrk.headers["Authorization"] = "Bearer ${KEY}"\n` +
    (conditional ? `wrk.headers["If-None-Match"] = '${first.headers.get('etag')}'\n` : ''),
);

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.start');
const cpuBefore = process.cpuUsage();
const wrk = spawn('taskset', ['-c', '1', 'wrk', '-t1', '-c10', '-d8s', '-s', script, url], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let report = '';
wrk.stdout.on('data', (chunk) => {
  report += chunk;
});
await new Promise((resolve) => wrk.on('exit', resolve));
const cpu = process.cpuUsage(cpuBefore);
const { profile } = await session.post('Profiler.stop');
const requests = Number(/(\d+) requests in/.exec(report)?.[1] ?? Number.NaN);
console.log(`${first.status} ${path}${conditional ? ' (If-None-Match)' : ''}: ${requests} requests`);
console.log(
  `server CPU per request, profiler included: ${((cpu.user + cpu.system) / requests).toFixed(1)} µs`,
);

const selfTime = new Map<string, number>();
const deltas = new Map<number, number>();
for (const [i, id] of (profile.samples ?? []).entries()) {
  deltas.set(id, (deltas.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
}
let total = 0;
for (const node of profile.nodes) {
  const time = deltas.get(node.id) ?? 0;
  total += time;
  const frame = node.callFrame;
  const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
  selfTime.set(key, (selfTime.get(key) ?? 0) + time);
}
for (const [name, time] of [...selfTime].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${name}`);
}
const out = join(new URL('./results/', import.meta.url).pathname);
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'requests.cpuprofile'), JSON.stringify(profile));
await running.close();
process.exit(0);

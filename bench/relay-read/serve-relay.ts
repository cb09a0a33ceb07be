// Bench child: starts one relay in its own (CPU-pinned) process and reports readiness as a JSON line on stdout.
import { performance } from 'node:perf_hooks';
import { compiledServiceDeps, importCompiled } from '../shared/import-compiled.ts';

const { loadRelayConfig } = await importCompiled<
  typeof import('../../src/relay/config/load-relay-config.ts')
>('relay/config/load-relay-config');
const { startRelay } =
  await importCompiled<typeof import('../../src/relay/start-relay.ts')>('relay/start-relay');

/** The line the parent waits for; times are milliseconds, memory is bytes after a full GC. */
export interface ServeRelayReport {
  readonly event: 'ready';
  readonly pid: number;
  readonly url: string;
  /** From the startRelay call until every table is loaded. */
  readonly loadMs: number;
  /** From process start (node and module loading included) until every table is loaded. */
  readonly sinceProcessStartMs: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}

const [configPath, bind] = process.argv.slice(2);
if (configPath === undefined || bind === undefined) {
  console.error('usage: serve-relay.ts <config.yaml> <host:port>');
  process.exit(2);
}

const loaded = loadRelayConfig(configPath, process.env);
const deps = await compiledServiceDeps('bench-relay');
const started = performance.now();
const running = await startRelay(loaded, deps, bind);
const loadedAt = performance.now();
// Run with --expose-gc so the RSS reflects live data, not garbage left over from parsing.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
gc?.();
const memory = process.memoryUsage();
const report: ServeRelayReport = {
  event: 'ready',
  pid: process.pid,
  url: running.url,
  loadMs: loadedAt - started,
  sinceProcessStartMs: loadedAt,
  rssBytes: memory.rss,
  heapUsedBytes: memory.heapUsed,
};
process.stdout.write(`${JSON.stringify(report)}\n`);

// A normal exit lets --cpu-prof write its profile and the audit file flush.
const stop = (): void => {
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

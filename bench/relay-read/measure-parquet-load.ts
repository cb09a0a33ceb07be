// Times a relay loading the 1,000,000-row Parquet table in a fresh process and reads its memory once loaded.
import { performance } from 'node:perf_hooks';
import type { ServeRelayReport } from './serve-relay.ts';
import { startBenchProcess } from './start-bench-process.ts';

export interface ParquetLoadRun {
  /** From spawning the process until GET /ready first answered 200, as a client sees it. */
  readonly readyMs: number;
  /** Inside the process: from the startRelay call until every table was loaded. */
  readonly loadMs: number;
  /** Inside the process: from process start until every table was loaded. */
  readonly sinceProcessStartMs: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}

export interface ParquetLoadOptions {
  readonly configPath: string;
  readonly bind: string;
  readonly env: Readonly<Record<string, string>>;
  readonly core: number;
}

const POLL_MS = 20;

export async function measureParquetLoad(options: ParquetLoadOptions): Promise<ParquetLoadRun> {
  const spawnedAt = performance.now();
  const child = startBenchProcess<ServeRelayReport>({
    entry: 'bench/relay-read/serve-relay.ts',
    args: [options.configPath, options.bind],
    core: options.core,
    env: options.env,
    nodeFlags: ['--expose-gc'],
  });
  // Poll from outside while the child loads: readiness is what a client or orchestrator actually observes.
  let readyMs: number | undefined;
  let childFailed = false;
  child.catch(() => {
    childFailed = true;
  });
  while (readyMs === undefined && !childFailed) {
    if (await isReady(`http://${options.bind}/ready`)) readyMs = performance.now() - spawnedAt;
    else await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const running = await child;
  try {
    if (readyMs === undefined) throw new Error('the relay never answered /ready with 200');
    const { loadMs, sinceProcessStartMs, rssBytes, heapUsedBytes } = running.report;
    return { readyMs, loadMs, sinceProcessStartMs, rssBytes, heapUsedBytes };
  } finally {
    await running.stop();
  }
}

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

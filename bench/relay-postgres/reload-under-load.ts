// Reads of the in-memory copy of `facilities` while the admin listener reloads it from PostgreSQL again and again
// (1,000,000 rows each time). One row changes before each reload, so every reload builds a new generation and swaps
// it in under the reads: none of them may fail.
import pg from 'pg';
import { failedRequests, runWrkCounting } from '../relay-read/run-wrk.ts';
import { type ReloadOutcome, serverErrorSeries, startReloadLoop } from '../shared/reload-loop.ts';

export interface ReloadUnderLoadRun {
  readonly rps: number;
  readonly requests: number;
  readonly latencyP99Ms: number | undefined;
  /** Error responses and socket errors wrk saw: the number this run is about. */
  readonly failed: number;
  readonly reloads: ReloadOutcome;
  /** 5xx series in the relay's own request metrics at the end. */
  readonly serverErrors: readonly string[];
}

export interface ReloadUnderLoadOptions {
  readonly relayUrl: string;
  readonly adminUrl: string;
  readonly operatorKey: string;
  readonly databaseUrl: string;
  /** The read wrk repeats, on the snapshot entity. */
  readonly path: string;
  readonly datasetId: string;
  readonly tableId: string;
  readonly scriptPath: string;
  readonly connections: number;
  readonly core: number;
  readonly durationS: number;
  readonly pauseMs: number;
}

// Row 1's beds as prepare-postgres-data.ts computes it ((1 * 37) % 500), and the other value it alternates with.
const ROW = 'F0000001';
const BEDS = 37;

export async function measureReloadUnderLoad(options: ReloadUnderLoadOptions): Promise<ReloadUnderLoadRun> {
  const db = new pg.Client({ connectionString: options.databaseUrl });
  await db.connect();
  const setBeds = (beds: number) =>
    db.query('UPDATE facilities SET beds = $1 WHERE facility_id = $2', [beds, ROW]).then(() => undefined);
  try {
    const loop = startReloadLoop({
      url: `${options.adminUrl}/admin/v1/datasets/${options.datasetId}/tables/${options.tableId}/reload`,
      operatorKey: options.operatorKey,
      pauseMs: options.pauseMs,
      prepare: (turn) => setBeds(turn % 2 === 1 ? BEDS + 1 : BEDS),
    });
    const result = await runWrkCounting({
      url: options.relayUrl + options.path,
      scriptPath: options.scriptPath,
      durationS: options.durationS,
      connections: options.connections,
      core: options.core,
    });
    const reloads = await loop.stop();
    return {
      rps: result.rps,
      requests: result.requests,
      latencyP99Ms: result.latencyP99Ms,
      failed: failedRequests(result),
      reloads,
      serverErrors: await serverErrorSeries(options.adminUrl, options.operatorKey),
    };
  } finally {
    // The table stays as prepare-postgres-data.ts built it, for the next run.
    await setBeds(BEDS);
    await db.end();
  }
}

// Reloads asked of a relay's admin listener again and again while reads run: each turn prepares the source (so the
// reload builds a different generation and swaps it in), asks for the reload, waits for its answer, then pauses.
import { performance } from 'node:perf_hooks';

export interface ReloadOutcome {
  readonly ok: number;
  readonly failed: number;
  readonly durationsMs: readonly number[];
}

export interface ReloadLoopOptions {
  /** The admin route to POST (`/admin/v1/reload` or one table's). */
  readonly url: string;
  readonly operatorKey: string;
  readonly pauseMs: number;
  /** Changes the source before reload number `turn` (1, 2, ...). */
  readonly prepare: (turn: number) => Promise<void> | void;
}

/** Starts the loop at once; `stop` lets the reload in progress finish and tells how they went. */
export function startReloadLoop(options: ReloadLoopOptions): { stop(): Promise<ReloadOutcome> } {
  let stopped = false;
  const run = async (): Promise<ReloadOutcome> => {
    let ok = 0;
    let failed = 0;
    const durationsMs: number[] = [];
    for (let turn = 1; !stopped; turn++) {
      await options.prepare(turn);
      const started = performance.now();
      // A connection the admin listener refused or dropped is a failed reload too, counted, not a stopped bench.
      const status = await fetch(options.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.operatorKey}` },
      }).then(
        async (reload) => {
          await reload.arrayBuffer();
          return reload.status;
        },
        () => 0,
      );
      durationsMs.push(performance.now() - started);
      if (status === 200) ok++;
      else failed++;
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
    return { ok, failed, durationsMs };
  };
  const outcome = run();
  return {
    stop() {
      stopped = true;
      return outcome;
    },
  };
}

/** The `ambit_relay_http_requests_total` series of 5xx answers in the relay's metrics. */
export async function serverErrorSeries(adminUrl: string, operatorKey: string): Promise<string[]> {
  const metrics = await fetch(`${adminUrl}/metrics`, { headers: { authorization: `Bearer ${operatorKey}` } });
  const text = await metrics.text();
  if (metrics.status !== 200) throw new Error(`metrics answered ${metrics.status}: ${text}`);
  return text.split('\n').filter((line) => /^ambit_relay_http_requests_total\{.*status="5\d\d"\}/.test(line));
}

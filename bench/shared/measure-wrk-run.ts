// One measured wrk run: warm-up, an optional check, then the timed run while the serving processes' CPU time (and
// instructions, where perf can count them) is counted.
import { loadavg } from 'node:os';
import { countProcessWork } from '../relay-read/count-process-work.ts';
import { runWrk, type WrkResult } from '../relay-read/run-wrk.ts';

export interface WrkRunOptions {
  readonly url: string;
  readonly scriptPath: string;
  readonly connections: number;
  readonly core: number;
  readonly warmupS: number;
  readonly durationS: number;
  /** Runs after the warm-up, before the timed run (for example: is the answer still the expected one?). */
  readonly check?: () => Promise<unknown>;
  /** One-minute load average sampled before the timed run is pushed here. */
  readonly loadAverages: number[];
  /** The processes whose work is counted during the timed run; none when absent. */
  readonly count?: {
    readonly pids: readonly number[];
    /** Whether perf counts instructions (see instructionsCountable). */
    readonly perfEnabled: boolean;
    /** Where perf writes its counts for the pid at this index. */
    readonly perfOutputPath: (index: number) => string;
  };
}

export interface WrkRunMeasurement {
  readonly result: WrkResult;
  /** CPU time of all counted processes during the timed run. */
  readonly cpuMs: number;
  /** Instructions of all counted processes; undefined when any could not be counted. */
  readonly instructions: number | undefined;
}

export async function measureWrkRun(options: WrkRunOptions): Promise<WrkRunMeasurement> {
  const wrk = {
    url: options.url,
    scriptPath: options.scriptPath,
    connections: options.connections,
    core: options.core,
  };
  await runWrk({ ...wrk, durationS: options.warmupS });
  await options.check?.();
  options.loadAverages.push(loadavg()[0] as number);
  const count = options.count;
  const counters = count
    ? await Promise.all(
        count.pids.map((pid, index) =>
          countProcessWork(pid, { enabled: count.perfEnabled, outputPath: count.perfOutputPath(index) }),
        ),
      )
    : [];
  const result = await runWrk({ ...wrk, durationS: options.durationS });
  const counted = await Promise.all(counters.map((counter) => counter.stop()));
  const instructions = counted.map((work) => work.instructions);
  return {
    result,
    cpuMs: counted.reduce((sum, work) => sum + work.cpuMs, 0),
    instructions: instructions.some((count) => count === undefined)
      ? undefined
      : (instructions as number[]).reduce((sum, count) => sum + count, 0),
  };
}

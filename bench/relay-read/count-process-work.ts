// Counts the work a server process does during a measured run: CPU time from /proc, instructions from perf stat.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcessWork {
  /** User plus system CPU time of every thread of the process, in milliseconds (10 ms resolution). */
  readonly cpuMs: number;
  /** Instructions counted by `perf stat -e instructions`, or undefined when the machine cannot count them. */
  readonly instructions: number | undefined;
}

export interface WorkCounter {
  stop(): Promise<ProcessWork>;
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * True when `perf stat -e instructions` yields a number here; virtual machines without a virtual PMU
 * report `<not supported>`, and a missing perf binary or a strict perf_event_paranoid count as unavailable.
 */
export function instructionsCountable(): boolean {
  const probe = spawnSync('perf', ['stat', '-x,', '-e', 'instructions', 'true'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return false;
  return parsePerfInstructions(probe.stderr) !== undefined;
}

/** Starts counting for `pid`; `stop` ends the count and returns what the process did in between. */
export async function countProcessWork(
  pid: number,
  perf: { readonly enabled: boolean; readonly outputPath: string },
): Promise<WorkCounter> {
  let perfProcess: ChildProcess | undefined;
  let perfExited: Promise<void> | undefined;
  if (perf.enabled) {
    perfProcess = spawn(
      'perf',
      ['stat', '-x,', '-e', 'instructions', '-p', String(pid), '-o', perf.outputPath],
      {
        stdio: 'ignore',
      },
    );
    const started = perfProcess;
    perfExited = new Promise((resolve) => started.once('exit', () => resolve()));
    // perf needs a moment to attach; counting a few idle milliseconds early costs nothing.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const cpuBefore = cpuTicks(pid);
  return {
    async stop() {
      const cpuAfter = cpuTicks(pid);
      let instructions: number | undefined;
      if (perfProcess && perfExited) {
        perfProcess.kill('SIGINT');
        await perfExited;
        instructions = parsePerfInstructions(readFileSync(perf.outputPath, 'utf8'));
      }
      return { cpuMs: ((cpuAfter - cpuBefore) * 1000) / CLOCK_TICKS_PER_SECOND, instructions };
    },
  };
}

/** The instructions count from `perf stat -x,` output, undefined for `<not supported>` or `<not counted>`. */
export function parsePerfInstructions(text: string): number | undefined {
  for (const line of text.split('\n')) {
    const fields = line.split(',');
    if (fields[2]?.startsWith('instructions')) {
      const value = Number(fields[0]);
      return fields[0] !== '' && Number.isFinite(value) ? value : undefined;
    }
  }
  return undefined;
}

/** utime + stime (fields 14 and 15 of /proc/<pid>/stat, counted after the parenthesised command name). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

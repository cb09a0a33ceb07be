// One bench run's lifetime: a scratch folder, the children it starts, the results file, and the exit code.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BenchProcess,
  type BenchProcessOptions,
  startBenchProcess,
} from '../relay-read/start-bench-process.ts';

export interface BenchSession {
  /** Scratch folder, removed when the run ends. */
  readonly work: string;
  /** Starts a child that is stopped when the run ends, whatever happens. */
  start<R>(options: BenchProcessOptions): Promise<BenchProcess<R>>;
  /** Runs the bench, prints a failure, stops every child, removes the scratch folder and exits: with 1 when the body
   * throws, else with the number the body resolves to (0 when it resolves to anything else). */
  run(body: () => Promise<unknown>): Promise<never>;
}

export function openBenchSession(name: string): BenchSession {
  const work = mkdtempSync(join(tmpdir(), `ambit-bench-${name}-`));
  const children: BenchProcess<unknown>[] = [];
  return {
    work,
    async start<R>(options: BenchProcessOptions) {
      const child = await startBenchProcess<R>(options);
      children.push(child);
      return child;
    },
    async run(body) {
      let exitCode = 0;
      try {
        const code = await body();
        exitCode = typeof code === 'number' ? code : 0;
      } catch (error) {
        console.error(error instanceof Error ? (error.stack ?? error.message) : error);
        exitCode = 1;
      } finally {
        for (const child of children.reverse()) await child.stop();
        rmSync(work, { recursive: true, force: true });
      }
      process.exit(exitCode);
    },
  };
}

/** The machine block of a results file. */
export function machineInfo(loadAverages: readonly number[]) {
  return {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAverages,
  };
}

/** Writes the results as indented JSON, creating the folder. */
export function writeResults(path: string, results: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
}

// Starts a bench child (a TypeScript entry) pinned to one CPU core and waits for its JSON "ready" line.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const REPO_DIR = fileURLToPath(new URL('../../', import.meta.url));

export interface BenchProcessOptions {
  /** Repository-relative TypeScript entry, run through bin/run-ts.js. */
  readonly entry: string;
  readonly args: readonly string[];
  /** Core for `taskset -c`. */
  readonly core: number;
  readonly env?: Readonly<Record<string, string>>;
  /** Extra node flags, for example --expose-gc or --cpu-prof. */
  readonly nodeFlags?: readonly string[];
  readonly readyTimeoutMs?: number;
}

export interface BenchProcess<R> {
  /** The node process id (taskset execs node in place, so it is also the spawned pid). */
  readonly pid: number;
  /** The parsed ready line. */
  readonly report: R;
  /** SIGTERM, then waits for the exit; a child that does not exit within 10 s is killed. */
  stop(): Promise<void>;
}

/** Resolves once the child prints a JSON line with `"event":"ready"`; rejects if it exits or times out first. */
export function startBenchProcess<R>(options: BenchProcessOptions): Promise<BenchProcess<R>> {
  const child = spawn(
    'taskset',
    [
      '-c',
      String(options.core),
      process.execPath,
      ...(options.nodeFlags ?? []),
      'bin/run-ts.js',
      options.entry,
      ...options.args,
    ],
    { cwd: REPO_DIR, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.entry} was not ready within ${options.readyTimeoutMs ?? 120_000} ms`));
    }, options.readyTimeoutMs ?? 120_000);
    const onExit = (code: number | null, signal: string | null): void => {
      clearTimeout(timer);
      reject(new Error(`${options.entry} exited before it was ready (code ${code}, signal ${signal})`));
    };
    child.once('exit', onExit);
    const lines = createInterface({ input: child.stdout as NonNullable<ChildProcess['stdout']> });
    lines.on('line', (line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        process.stdout.write(`[${options.entry}] ${line}\n`);
        return;
      }
      if ((parsed as { event?: unknown }).event !== 'ready') return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({
        pid: child.pid as number,
        report: parsed as R,
        stop: () => stopChild(child, exited),
      });
    });
  });
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

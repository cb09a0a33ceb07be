// Runs wrk pinned to one core and parses its report; error responses or socket errors fail the run.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface WrkOptions {
  readonly url: string;
  /** Lua script setting the request headers (see writeHeaderScript). */
  readonly scriptPath: string;
  readonly durationS: number;
  readonly connections: number;
  readonly core: number;
}

export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly latencyP50Ms: number | undefined;
  readonly latencyP99Ms: number | undefined;
  readonly non2xx3xx: number;
  readonly socketErrors: { connect: number; read: number; write: number; timeout: number };
}

export class WrkRunFailed extends Error {
  override readonly name = 'WrkRunFailed';
}

export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const { result, stdout } = await runWrkOnce(options);
  const problem = runProblem(result);
  if (problem !== undefined) throw new WrkRunFailed(`${options.url}: ${problem}\n${stdout}`);
  return result;
}

/** A run whose failed requests are counted (`failedRequests`) rather than thrown; throws only when none completed. */
export async function runWrkCounting(options: WrkOptions): Promise<WrkResult> {
  const { result, stdout } = await runWrkOnce(options);
  if (result.requests === 0) throw new WrkRunFailed(`${options.url}: no request completed\n${stdout}`);
  return result;
}

/** Error responses plus socket errors. */
export function failedRequests(result: WrkResult): number {
  const { connect, read, write, timeout } = result.socketErrors;
  return result.non2xx3xx + connect + read + write + timeout;
}

async function runWrkOnce(options: WrkOptions): Promise<{ result: WrkResult; stdout: string }> {
  const args = [
    '-c',
    String(options.core),
    'wrk',
    '-t1',
    `-c${options.connections}`,
    `-d${options.durationS}s`,
    '--latency',
    '-s',
    options.scriptPath,
    options.url,
  ];
  const { stdout } = await execFileAsync('taskset', args, { maxBuffer: 1024 * 1024 });
  return { result: parseWrkOutput(stdout), stdout };
}

/** Why a run cannot be counted, or undefined when it is clean. */
export function runProblem(result: WrkResult): string | undefined {
  if (result.requests === 0) return 'no request completed';
  if (result.non2xx3xx > 0) return `${result.non2xx3xx} non-2xx/3xx responses`;
  const { connect, read, write, timeout } = result.socketErrors;
  if (connect + read + write + timeout > 0) {
    return `socket errors: connect ${connect}, read ${read}, write ${write}, timeout ${timeout}`;
  }
  return undefined;
}

export function parseWrkOutput(text: string): WrkResult {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m),/.exec(text);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!total || !rps) throw new Error(`unrecognised wrk output:\n${text}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  return {
    requests: Number(total[1]),
    seconds: toMs(Number(total[2]), total[3] as string) / 1000,
    rps: Number(rps[1]),
    latencyP50Ms: percentile(text, '50'),
    latencyP99Ms: percentile(text, '99'),
    non2xx3xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: {
      connect: Number(socket?.[1] ?? 0),
      read: Number(socket?.[2] ?? 0),
      write: Number(socket?.[3] ?? 0),
      timeout: Number(socket?.[4] ?? 0),
    },
  };
}

/** A wrk script that sends these headers on every request; values go in Lua long brackets, unescaped. */
export function writeHeaderScript(path: string, headers: Readonly<Record<string, string>>): void {
  const lines = Object.entries(headers).map(([name, value]) => {
    if (value.includes(']]') || name.includes(']]'))
      throw new Error(`header ${name} cannot be quoted for Lua`);
    return `wrk.headers[ [[${name}]] ] = [[${value}]]`;
  });
  writeFileSync(path, `${lines.join('\n')}\n`);
}

function percentile(text: string, which: string): number | undefined {
  const match = new RegExp(`^\\s+${which}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(text);
  return match ? toMs(Number(match[1]), match[2] as string) : undefined;
}

function toMs(value: number, unit: string): number {
  switch (unit) {
    case 'us':
      return value / 1000;
    case 'ms':
      return value;
    case 's':
      return value * 1000;
    default:
      return value * 60_000;
  }
}

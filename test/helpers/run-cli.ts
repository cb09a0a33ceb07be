// Runs the `ambit` CLI in-process from the repository root, its output split into lines whatever each command
// passed to out/err.
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

export async function runCli(argv: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    env,
    cwd: ROOT,
    out: (text) => out.push(...text.split('\n')),
    err: (text) => err.push(...text.split('\n')),
  });
  return { code, out, err };
}

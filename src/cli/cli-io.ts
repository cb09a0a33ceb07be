// What a CLI command may touch: its arguments, environment and output streams (injected for tests).
export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** The running command's usage line (`ambit keys generate --id ID ...`), printed after a flag mistake. */
  readonly usage?: string;
  out(line: string): void;
  err(line: string): void;
}

export type Command = (args: string[], io: CliIo) => Promise<number>;

export const processIo: CliIo = {
  env: process.env,
  cwd: process.cwd(),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

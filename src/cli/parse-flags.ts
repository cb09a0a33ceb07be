// Flag parsing for commands (node:util parseArgs), with unknown flags reported instead of ignored: a misspelt one
// with the nearest accepted flag, and a flag given twice (parseArgs would keep the last one silently) refused.
import { parseArgs } from 'node:util';
import { editDistance } from '../platform/config/did-you-mean.ts';
import type { CliIo } from './cli-io.ts';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

export function parseFlags<S extends FlagSpec>(args: string[], spec: S) {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: spec, strict: true, allowPositionals: false, tokens: true });
  } catch (error) {
    throw new Error(explain(error, spec));
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || spec[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw new Error(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  return parsed.values as { [K in keyof S]?: S[K]['type'] extends 'boolean' ? boolean : string };
}

export function flagError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Prints a flag mistake, then the command's usage line (when the dispatcher gave one); the exit code 2. */
export function reportFlagError(io: CliIo, error: unknown): 2 {
  io.err(flagError(error));
  if (io.usage !== undefined) io.err(`usage: ${io.usage}`);
  return 2;
}

/** parseArgs' message said in the CLI's words: the nearest accepted flag for an unknown one, or the accepted list. */
function explain(error: unknown, spec: FlagSpec): string {
  const message = flagError(error);
  const code = (error as { code?: unknown }).code;
  const names = Object.keys(spec);
  const accepted = names.length === 0 ? '' : ` (accepted: ${names.map((name) => `--${name}`).join(', ')})`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const argument = /^Unexpected argument '(.*)'\. /s.exec(message)?.[1];
    if (argument !== undefined) {
      return names.length === 0
        ? `unexpected argument ${argument}`
        : `unexpected argument ${argument}: this command takes flags only${accepted}`;
    }
  }
  const option = /^Option '(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    if (spec[option.replace(/^-+/, '')]?.type === 'boolean') return `${option} takes no value`;
    // parseArgs will not take a value starting with a dash (`--id --for relay`): most often a value left out.
    return message.includes('ambiguous')
      ? `${option} needs a value (write ${option}=VALUE for a value starting with a dash)`
      : `${option} needs a value`;
  }
  const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(message)?.[1];
  if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || unknown === undefined) return message;
  if (names.length === 0) return `unknown flag ${unknown}`;
  const typed = unknown.replace(/^-+/, '').split('=')[0] ?? '';
  const suggestion = nearestName(typed, names);
  if (suggestion !== undefined) return `unknown flag ${unknown}: did you mean --${suggestion}?`;
  return `unknown flag ${unknown}${accepted}`;
}

/** The flag a typo most likely meant: one it starts (or is started by), else one or two edits away. */
function nearestName(given: string, names: readonly string[]): string | undefined {
  // Flags are lower case: `--ID` meant `--id`.
  const typed = given.toLowerCase();
  if (typed.length >= 2) {
    const prefixed = names.find((name) => name.startsWith(typed) || typed.startsWith(name));
    if (prefixed !== undefined) return prefixed;
  }
  const allowed = typed.length <= 4 ? 1 : 2;
  const [nearest] = names
    .map((name) => ({ name, distance: editDistance(typed, name) }))
    .filter(({ distance }) => distance <= allowed)
    .sort((a, b) => a.distance - b.distance);
  return nearest?.name;
}

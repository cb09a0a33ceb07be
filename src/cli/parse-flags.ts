// Flag parsing for commands (node:util parseArgs), with unknown flags reported instead of ignored: a misspelt one
// with the nearest accepted flag, and a flag given twice (parseArgs would keep the last one silently) refused.
import { parseArgs } from 'node:util';
import { editDistance } from '../platform/config/did-you-mean.ts';

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

/** parseArgs' message, with the nearest accepted flag for an unknown one, or the list of accepted flags. */
function explain(error: unknown, spec: FlagSpec): string {
  const message = flagError(error);
  const code = (error as { code?: unknown }).code;
  const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(message)?.[1];
  if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || unknown === undefined) return message;
  const names = Object.keys(spec);
  if (names.length === 0) return `unknown flag ${unknown}`;
  const typed = unknown.replace(/^-+/, '').split('=')[0] ?? '';
  const suggestion = nearestName(typed, names);
  if (suggestion !== undefined) return `unknown flag ${unknown}: did you mean --${suggestion}?`;
  return `unknown flag ${unknown} (accepted: ${names.map((name) => `--${name}`).join(', ')})`;
}

/** The flag a typo most likely meant: one it starts (or is started by), else one or two edits away. */
function nearestName(typed: string, names: readonly string[]): string | undefined {
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

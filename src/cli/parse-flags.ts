// Flag parsing for commands (node:util parseArgs), with unknown flags reported instead of ignored.
import { parseArgs } from 'node:util';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

export function parseFlags<S extends FlagSpec>(args: string[], spec: S) {
  const parsed = parseArgs({ args, options: spec, strict: true, allowPositionals: false });
  return parsed.values as { [K in keyof S]?: S[K]['type'] extends 'boolean' ? boolean : string };
}

export function flagError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

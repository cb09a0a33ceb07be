// KEY=VALUE env files for `--env-file`: comments, `export ` prefixes and quoted values.
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.ts';

export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const value = match[2] ?? '';
    // A quoted value keeps `#` and spaces inside the quotes and may be followed by a comment.
    const quoted = /^(["'])(.*?)\1\s*(?:#.*)?$/.exec(value);
    values[match[1] as string] = quoted ? (quoted[2] ?? '') : value.replace(/\s+#.*$/, '');
  }
  return values;
}

export function readEnvFile(path: string): Record<string, string> {
  try {
    return parseEnvFile(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError([
      {
        path: '',
        code: 'config.env_file_unreadable',
        message: `cannot read env file ${path}: ${(error as Error).message}`,
      },
    ]);
  }
}

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
    let value = match[2] ?? '';
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    values[match[1] as string] = value;
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

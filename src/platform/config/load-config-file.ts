// Reads a YAML config file: env files, `${VAR}` expansion, then YAML parsing with located syntax errors.
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { ConfigError, type ConfigIssue } from './config-error.ts';
import { expandEnv } from './expand-env.ts';
import { yamlToPlain } from './yaml-to-plain.ts';

export interface LoadedConfigFile {
  readonly path: string;
  readonly raw: unknown;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function loadConfigFile(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): LoadedConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([
      {
        path: '',
        code: 'config.file_unreadable',
        message: `cannot read ${path}: ${(error as Error).message}`,
      },
    ]);
  }
  return { path, raw: parseConfigText(text, env), env };
}

export function parseConfigText(text: string, env: Readonly<Record<string, string | undefined>>): unknown {
  const expanded = expandEnv(text, env);
  const document = parseDocument(expanded.text, { prettyErrors: true, uniqueKeys: true });
  const issues: ConfigIssue[] = [...expanded.issues];
  const linesSeen = new Set<number>();
  for (const error of document.errors) {
    const line = error.linePos?.[0];
    // One mistake often trips several parser rules on the same line; the first names the cause.
    if (line) {
      if (linesSeen.has(line.line)) continue;
      linesSeen.add(line.line);
    }
    issues.push({
      path: line ? `line ${line.line}` : '',
      code: 'config.parse_error',
      // The first line of a pretty error ends in `line L, column C:` before the excerpt; keep it, drop the colon.
      message: (error.message.split('\n')[0] ?? error.message).replace(/:$/, ''),
    });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  const plain = yamlToPlain(document, expanded.text);
  if (plain.ok) return plain.value;
  throw new ConfigError(
    plain.problems.map((problem) => ({
      path: problem.line === undefined ? '' : `line ${problem.line}`,
      code: 'config.parse_error',
      message: problem.message,
    })),
  );
}

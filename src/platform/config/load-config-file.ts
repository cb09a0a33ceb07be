// Reads a YAML config file: env files, `${VAR}` expansion, then YAML parsing with located syntax errors.
import { createHash } from 'node:crypto';
import { checkSubstitutions } from './check-substitutions.ts';
import { ConfigError, type ConfigIssue } from './config-error.ts';
import { expandEnv } from './expand-env.ts';
import { rememberLines } from './issue-lines.ts';
import { parseStrictYaml } from './parse-strict-yaml.ts';
import { MAX_CONFIG_FILE_BYTES, readBoundedFile } from './read-bounded-file.ts';
import { decodeUtf8 } from './read-utf8-text.ts';
import { lineFinder, yamlToPlain } from './yaml-to-plain.ts';

export interface LoadedConfigFile {
  readonly path: string;
  readonly raw: unknown;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** sha256 (hex) of the file's bytes as written: its `${VAR}` references, never the values they bring in. */
  readonly sourceDigest: string;
}

export function loadConfigFile(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): LoadedConfigFile {
  const read = readBoundedFile(path, MAX_CONFIG_FILE_BYTES);
  if (!read.ok) {
    throw new ConfigError([
      { path: '', code: 'config.file_unreadable', message: `cannot read ${path}: ${read.reason}` },
    ]);
  }
  const decoded = decodeUtf8(read.bytes);
  if (!decoded.ok) throw new ConfigError([decoded.issue]);
  return { path, raw: parseConfigText(decoded.text, env), env, sourceDigest: sourceDigestOf(read.bytes) };
}

/** What a config's posture and digest name it by: the text as written, as `sha256sum` prints it for the file. */
export function sourceDigestOf(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

export function parseConfigText(text: string, env: Readonly<Record<string, string | undefined>>): unknown {
  const expanded = expandEnv(text, env);
  const parsed = parseStrictYaml(expanded.text);
  const { document } = parsed;
  const issues: ConfigIssue[] = [...expanded.issues];
  const problems = [...checkSubstitutions(expanded.text, expanded.substitutions), ...parsed.problems].sort(
    (a, b) => (a.line ?? 0) - (b.line ?? 0),
  );
  // A line whose reference could not be expanded already has its issue; what the parser makes of it is noise.
  const linesSeen = new Set<number>(expanded.issues.map((issue) => Number(issue.path.slice('line '.length))));
  for (const { line, message } of problems) {
    // One mistake often trips several parser rules on the same line; the first names the cause.
    if (line) {
      if (linesSeen.has(line)) continue;
      linesSeen.add(line);
    }
    issues.push({ path: line ? `line ${line}` : '', code: 'config.parse_error', message });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  const plain = yamlToPlain(document, expanded.text);
  if (plain.ok) {
    // Values keep their lines: a `${VAR}` never adds one, as a value with a line break is refused above.
    rememberLines(plain.value, document, lineFinder(expanded.text));
    return plain.value;
  }
  throw new ConfigError(
    plain.problems.map((problem) => ({
      path: problem.line === undefined ? '' : `line ${problem.line}`,
      code: 'config.parse_error',
      message: problem.message,
    })),
  );
}

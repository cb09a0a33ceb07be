// Reads a YAML config file: env files, `${VAR}` expansion, then YAML parsing with located syntax errors.
import { readFileSync } from 'node:fs';
import { type Document, LineCounter, parseDocument, type YAMLWarning } from 'yaml';
import { checkSubstitutions } from './check-substitutions.ts';
import { ConfigError, type ConfigIssue } from './config-error.ts';
import { expandEnv } from './expand-env.ts';
import { findDuplicateKeys } from './find-duplicate-keys.ts';
import { decodeUtf8 } from './read-utf8-text.ts';
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
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new ConfigError([
      {
        path: '',
        code: 'config.file_unreadable',
        message: `cannot read ${path}: ${(error as Error).message}`,
      },
    ]);
  }
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) throw new ConfigError([decoded.issue]);
  return { path, raw: parseConfigText(decoded.text, env), env };
}

export function parseConfigText(text: string, env: Readonly<Record<string, string | undefined>>): unknown {
  const expanded = expandEnv(text, env);
  const lineCounter = new LineCounter();
  // Tags outside YAML 1.2 core (`!!binary`, `!!set`, `!!timestamp`) stay unresolved and are refused below.
  const document = parseDocument(expanded.text, {
    prettyErrors: true,
    uniqueKeys: false,
    resolveKnownTags: false,
    lineCounter,
  });
  const issues: ConfigIssue[] = [...expanded.issues];
  const problems = [
    ...checkSubstitutions(expanded.text, expanded.substitutions),
    ...document.errors.map((error) => ({ line: error.linePos?.[0]?.line, message: parserMessage(error) })),
    ...document.warnings.filter((warning) => warning.code === 'TAG_RESOLVE_FAILED').map(unsupportedTag),
    ...yamlVersionProblems(document, expanded.text),
    ...findDuplicateKeys(document, lineCounter),
  ].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
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
  if (plain.ok) return plain.value;
  throw new ConfigError(
    plain.problems.map((problem) => ({
      path: problem.line === undefined ? '' : `line ${problem.line}`,
      code: 'config.parse_error',
      message: problem.message,
    })),
  );
}

// The tag is not named: a `${VAR}` may have put it there.
function unsupportedTag(warning: YAMLWarning): { line: number | undefined; message: string } {
  return {
    line: warning.linePos?.[0]?.line,
    message:
      'unsupported tag: only the YAML 1.2 core tags (!!str, !!int, !!float, !!bool, !!null, !!seq, !!map)',
  };
}

/**
 * A `%YAML 1.1` directive would switch the parser to YAML 1.1, where `on` and `no` are booleans, `0123` is octal and
 * `<<` merges mappings: the file would mean something other than what the rest of the config is checked as.
 */
function yamlVersionProblems(document: Document, text: string): { line: number; message: string }[] {
  const { version, explicit } = document.directives?.yaml ?? { version: '1.2' };
  if (!explicit || version === '1.2') return [];
  const line = text.split('\n').findIndex((source) => source.startsWith('%YAML')) + 1;
  return [
    {
      line: line > 0 ? line : 1,
      message:
        'only YAML 1.2 is supported: remove the %YAML directive (YAML 1.1 reads `on`, `no` and `0123` differently)',
    },
  ];
}

/**
 * The first line of a pretty error ends in `line L, column C:` before the excerpt; it is kept without the colon.
 * Some messages quote the offending source (`extra characters: |...`, `Could not resolve tag: !...`), which a
 * `${VAR}` may have filled with a secret: the quote is dropped, a token type (`flow-map-end`) is kept.
 */
function parserMessage(error: Error): string {
  const first = (error.message.split('\n')[0] ?? error.message).replace(/:$/, '');
  return first.replace(/: (.*)( at line \d+, column \d+)$/s, (whole, quoted: string, position: string) =>
    /^[a-z-]+$/.test(quoted) ? whole : position,
  );
}

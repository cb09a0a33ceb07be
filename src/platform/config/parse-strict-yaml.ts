// YAML as every file of ours is read: YAML 1.2 core only (no %YAML 1.1 directive, no tags beyond the core ones),
// keys unique as the object keys they become, every problem located by line, nothing of a value quoted.
import { type Document, LineCounter, parseDocument, type YAMLWarning } from 'yaml';
import { findDuplicateKeys } from './find-duplicate-keys.ts';
import { TOO_DEEP } from './yaml-to-plain.ts';

export interface YamlProblem {
  readonly line: number | undefined;
  readonly message: string;
}

export function parseStrictYaml(text: string): { document: Document; problems: YamlProblem[] } {
  const lineCounter = new LineCounter();
  // Tags outside YAML 1.2 core (`!!binary`, `!!set`, `!!timestamp`) stay unresolved and are refused below.
  const document = parseDocument(text, {
    prettyErrors: true,
    uniqueKeys: false,
    resolveKnownTags: false,
    lineCounter,
  });
  const problems = [
    ...document.errors.map((error) => ({ line: error.linePos?.[0]?.line, message: parserMessage(error) })),
    ...document.warnings.filter((warning) => warning.code === 'TAG_RESOLVE_FAILED').map(unsupportedTag),
    ...yamlVersionProblems(document, text),
    ...findDuplicateKeys(document, lineCounter),
  ].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { document, problems };
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
  // The parser ran out of stack: collections nested hundreds deep.
  if (first.startsWith('Maximum call stack size exceeded')) {
    return first.replace(/^Maximum call stack size exceeded/, TOO_DEEP);
  }
  return first.replace(/: (.*)( at line \d+, column \d+)$/s, (whole, quoted: string, position: string) =>
    /^[a-z-]+$/.test(quoted) ? whole : position,
  );
}

// `${VAR}`, `${VAR:-default}` and `${VAR:?message}` expansion, applied to the config text before YAML parsing.
import type { ConfigIssue } from './config-error.ts';
import { envValue } from './env-value.ts';

// A default or message may not hold `${`: a nested reference is not expanded, so matching it would leave the inner
// `${...}` as literal text; unmatched, it is reported as an unsupported reference below.
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)((?:[^}$]|\$(?!\{))*))?\}/g;

/** Where an expanded value landed in the expanded text, so the parse can check it stayed one scalar's text. */
export interface Substitution {
  readonly name: string;
  /** 1-based line of the reference in the file as written. */
  readonly line: number;
  readonly start: number;
  readonly end: number;
}

export function expandEnv(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { text: string; issues: ConfigIssue[]; substitutions: Substitution[] } {
  const issues: ConfigIssue[] = [];
  const substitutions: Substitution[] = [];
  let offset = 0;
  const lines = text.split('\n').map((line, index) => {
    const lineStart = offset;
    // Comment lines are left alone so a commented-out reference never fails the load.
    const expanded = /^\s*#/.test(line) ? line : expandLine(line, index + 1);
    offset += expanded.length + 1;
    return expanded;

    function expandLine(source: string, lineNumber: number): string {
      // Any other `${...}` form (`${VAR-x}`, `${VAR:=x}`, `${1}`) would stay as literal text without a word.
      if (source.replace(REFERENCE, '').includes('${')) {
        issues.push({
          path: `line ${lineNumber}`,
          code: 'config.parse_error',
          message:
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the message shows the reference syntax itself.
            'a `${` that is not a supported reference: write ${VAR}, ${VAR:-default} or ${VAR:?message}',
        });
      }
      let out = '';
      let last = 0;
      for (const match of source.matchAll(REFERENCE)) {
        const [whole, name, operator, argument] = match as unknown as [string, string, string?, string?];
        out += source.slice(last, match.index);
        last = match.index + whole.length;
        let value = resolve(name, operator, argument, lineNumber);
        if (/[\r\n]/.test(value)) {
          // Inserted, it would add lines of YAML (keys, items) and move every later line; it is left out instead.
          issues.push({
            path: `line ${lineNumber}`,
            code: 'config.parse_error',
            message: `the value of ${name} would change the YAML structure: it holds a line break (the value is not shown)`,
          });
          value = '';
        }
        const start = lineStart + out.length;
        out += value;
        if (value !== '') substitutions.push({ name, line: lineNumber, start, end: start + value.length });
      }
      return out + source.slice(last);
    }
  });

  function resolve(name: string, operator: string | undefined, argument: string | undefined, line: number) {
    const value = envValue(env, name);
    if (operator === ':-') return value === undefined || value === '' ? (argument ?? '') : value;
    if (value !== undefined && (operator !== ':?' || value !== '')) return value;
    const reason = operator === ':?' && argument ? argument : `environment variable ${name} is not set`;
    issues.push({ path: `line ${line}`, code: 'config.missing_env', message: reason });
    return '';
  }

  return { text: lines.join('\n'), issues, substitutions };
}

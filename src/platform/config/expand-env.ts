// `${VAR}`, `${VAR:-default}` and `${VAR:?message}` expansion, applied to the config text before YAML parsing.
import type { ConfigIssue } from './config-error.ts';

// A default or message may not hold `${`: a nested reference is not expanded, so matching it would leave the inner
// `${...}` as literal text; unmatched, it is reported as an unsupported reference below.
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)((?:[^}$]|\$(?!\{))*))?\}/g;

export function expandEnv(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { text: string; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const lines = text.split('\n').map((line, index) => {
    // Comment lines are left alone so a commented-out reference never fails the load.
    if (/^\s*#/.test(line)) return line;
    // Any other `${...}` form (`${VAR-x}`, `${VAR:=x}`, `${1}`) would stay as literal text without a word.
    if (line.replace(REFERENCE, '').includes('${')) {
      issues.push({
        path: `line ${index + 1}`,
        code: 'config.parse_error',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the message shows the reference syntax itself.
        message: 'a `${` that is not a supported reference: write ${VAR}, ${VAR:-default} or ${VAR:?message}',
      });
    }
    return line.replace(REFERENCE, (_whole, name: string, operator?: string, argument?: string) => {
      const value = env[name];
      if (operator === ':-') return value === undefined || value === '' ? (argument ?? '') : value;
      if (value !== undefined && (operator !== ':?' || value !== '')) return value;
      const reason = operator === ':?' && argument ? argument : `environment variable ${name} is not set`;
      issues.push({ path: `line ${index + 1}`, code: 'config.missing_env', message: reason });
      return '';
    });
  });
  return { text: lines.join('\n'), issues };
}

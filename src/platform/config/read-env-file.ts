// KEY=VALUE env files for `--env-file`: comments, `export ` prefixes and quoted values.
import { ConfigError, type ConfigIssue } from './config-error.ts';
import { MAX_ENV_FILE_BYTES, readBoundedFile } from './read-bounded-file.ts';
import { decodeUtf8 } from './read-utf8-text.ts';

export interface EnvFileProblem {
  /** 1-based line of the file. */
  readonly line: number;
  readonly message: string;
}

/** The values of an env file, skipping lines it cannot read (for files Ambit writes itself). */
export function parseEnvFile(text: string): Record<string, string> {
  return parseEnvLines(text).values;
}

/** The values of an env file and the lines that are not `KEY=VALUE`; a problem never quotes the line. */
export function parseEnvLines(text: string): { values: Record<string, string>; problems: EnvFileProblem[] } {
  const values: Record<string, string> = {};
  const problems: EnvFileProblem[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) {
      problems.push({
        line: index + 1,
        message: 'not a KEY=VALUE line (a name of letters, digits and _, then =; # starts a comment line)',
      });
      return;
    }
    const value = match[2] ?? '';
    // A quoted value keeps `#` and spaces inside the quotes and may be followed by a comment.
    const quoted = /^(["'])(.*?)\1\s*(?:#.*)?$/.exec(value);
    if (!quoted && /^["']/.test(value)) {
      // Kept as is, the opening quote would end up in the value; values span a single line.
      problems.push({ line: index + 1, message: 'the quoted value has no closing quote on its line' });
      return;
    }
    // Defined rather than assigned: assigned, a `__proto__` entry would be dropped without a word.
    Object.defineProperty(values, match[1] as string, {
      value: quoted ? (quoted[2] ?? '') : value.replace(/(?<!\s)\s+#.*$/, ''),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
  return { values, problems };
}

export function readEnvFile(path: string): Record<string, string> {
  const read = readBoundedFile(path, MAX_ENV_FILE_BYTES);
  if (!read.ok) throw new ConfigError([unreadable(`cannot read env file ${path}: ${read.reason}`)]);
  // Decoding leniently would replace the bytes of a secret with U+FFFD without a word.
  const decoded = decodeUtf8(read.bytes);
  if (!decoded.ok) {
    throw new ConfigError([unreadable(`env file ${path} ${decoded.issue.path}: ${decoded.issue.message}`)]);
  }
  const { values, problems } = parseEnvLines(decoded.text);
  // A skipped line would surface later as an unset variable, far from the typo that caused it.
  if (problems.length > 0) {
    throw new ConfigError(
      problems.map((problem) => unreadable(`env file ${path} line ${problem.line}: ${problem.message}`)),
    );
  }
  return values;
}

function unreadable(message: string): ConfigIssue {
  return { path: '', code: 'config.env_file_unreadable', message };
}

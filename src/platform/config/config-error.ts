// Startup and config errors: every bad path at once, each with a stable code.
export interface ConfigIssue {
  /** Dotted path into the config (`datasets.0.entities.1.api.allowed_filters`), or '' for the whole file. */
  readonly path: string;
  /** 1-based line of the config file the path stands on, when it is known. */
  readonly line?: number;
  readonly code: string;
  readonly message: string;
}

export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(issues.map(formatIssue).join('\n'));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export function formatIssue(issue: ConfigIssue): string {
  // The line goes last: `<code> at <path>: <message>` is what scripts and people search for.
  const line = issue.line === undefined ? '' : ` (line ${issue.line})`;
  return `${issue.code} at ${issue.path === '' ? '(root)' : issue.path}: ${issue.message}${line}`;
}

export function joinPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

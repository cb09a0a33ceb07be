// Startup and config errors: every bad path at once, each with a stable code.
export interface ConfigIssue {
  /** Dotted path into the config (`datasets.0.entities.1.api.allowed_filters`), or '' for the whole file. */
  readonly path: string;
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
  return `${issue.code} at ${issue.path === '' ? '(root)' : issue.path}: ${issue.message}`;
}

export function joinPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

// The codes of the problems that keep an audit sink from opening at startup (or reload), with when each occurs.
export const AUDIT_ISSUE_CODES = {
  'audit.path_required': 'The `file` or `jsonl` audit sink has no `audit.path`.',
  'audit.sink_unavailable':
    'The audit file cannot be opened or read, for example because a folder on `audit.path` is a regular file or is not writable.',
  'audit.sink_in_use':
    'Another running process writes the same audit file (its `<audit.path>.lock` names it): give each process its own `audit.path`.',
  'audit.chain_invalid':
    'The last record of the audit file does not verify with the audit secret (a tampered or truncated tail, or a changed secret): check the file and the secret, or move the file aside to start a new chain.',
} as const satisfies Record<string, string>;

export type AuditIssueCode = keyof typeof AUDIT_ISSUE_CODES;

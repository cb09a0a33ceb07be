// Cross-field rules of the `audit` block both services share.
import type { AuditBlock } from './audit-config-schema.ts';
import type { ConfigIssue } from './config-error.ts';

export function checkAuditBlock(audit: AuditBlock): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const { sink, path } = audit;
  if (sink !== 'stdout' && (path === undefined || path === '')) {
    issues.push({
      path: 'audit.path',
      code: 'config.validation_error',
      message: `is required for the ${sink} sink`,
    });
  }
  // Only the `file` sink rotates; accepting `rotate` elsewhere would let a jsonl file grow without the bound asked for.
  if (audit.rotate !== undefined && sink !== 'file') {
    issues.push({
      path: 'audit.rotate',
      code: 'config.validation_error',
      message: `applies to the file sink only (the ${sink} sink ${sink === 'jsonl' ? 'appends to one file' : 'has no file'}); use sink: file to rotate`,
    });
  }
  return issues;
}

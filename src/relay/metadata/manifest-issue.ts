// Building blocks of manifest issues: the generic code, and an unknown-reference issue with a did-you-mean hint.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { hint } from '../../platform/config/did-you-mean.ts';

const INVALID = 'metadata.manifest.validation_failed';

export function manifestIssue(path: string, message: string, code = INVALID): ConfigIssue {
  return { path, code, message };
}

/** An unknown id or name where the manifest references something it declares elsewhere. */
export function unknownReference(
  path: string,
  what: string,
  name: string,
  known: Iterable<string>,
): ConfigIssue {
  return manifestIssue(path, `unknown ${what} \`${name}\`${hint(name, known)}`);
}

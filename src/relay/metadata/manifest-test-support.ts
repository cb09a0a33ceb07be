// For tests: a manifest text's issues as `path: message` lines, none when it loads.
import { ConfigError } from '../../platform/config/config-error.ts';
import { parseManifestText } from './load-manifest.ts';

export function manifestIssues(text: string): string[] {
  try {
    parseManifestText(text);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => `${issue.path}: ${issue.message}`);
    throw error;
  }
}

// Locates the official standards artefacts (not ours to commit): STANDARDS_DIR, default ../shared/standards.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function standardsDir(): string {
  const dir = resolve(ROOT, process.env.STANDARDS_DIR ?? '../shared/standards');
  if (!existsSync(dir)) {
    throw new Error(
      `standards artefacts not found at ${dir}: set STANDARDS_DIR to the folder holding rfc9457/, dcat-ap/, sdmx-json/ ...`,
    );
  }
  return dir;
}

export function readStandardJson(relativePath: string): unknown {
  return JSON.parse(readFileSync(resolve(standardsDir(), relativePath), 'utf8'));
}

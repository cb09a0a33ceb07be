// The tree is the architecture: imports point cli -> relay | verifier | sidecar | publisher | client -> platform.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const AREAS = ['platform', 'relay', 'verifier', 'sidecar', 'publisher', 'client', 'cli'] as const;
const FORBIDDEN: Record<string, readonly string[]> = {
  platform: ['relay', 'verifier', 'sidecar', 'publisher', 'client', 'cli'],
  relay: ['verifier', 'sidecar', 'publisher', 'client', 'cli'],
  verifier: ['relay', 'sidecar', 'publisher', 'client', 'cli'],
  sidecar: ['relay', 'verifier', 'publisher', 'client', 'cli'],
  publisher: ['verifier', 'sidecar', 'client', 'cli'],
  client: ['relay', 'verifier', 'sidecar', 'publisher', 'cli'],
  cli: [],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function areaOf(path: string): string | undefined {
  return relative(SRC, path).split('/')[0];
}

describe('architecture', () => {
  it('no area imports an area it must not depend on', () => {
    const crossings: string[] = [];
    const files = sourceFiles(SRC);
    assert.ok(files.length > 50, 'the scan sees the source tree');
    for (const file of files) {
      const from = areaOf(file) as string;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
        const target = areaOf(resolve(file, '..', match[1] as string));
        if (target && (FORBIDDEN[from] ?? AREAS).includes(target))
          crossings.push(`${relative(SRC, file)} -> ${match[1]}`);
      }
    }
    assert.deepEqual(crossings, []);
  });
});

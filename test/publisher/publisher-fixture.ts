// Shared by the static publisher tests: the demo manifest, files under a folder, CLI output, a temp folder.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after } from 'node:test';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { DEMO_DIR } from '../helpers/relay-harness.ts';

export const MANIFEST = join(DEMO_DIR, 'relay.metadata.yaml');

/** The paths of the files under `root`, relative to it, sorted. */
export function filesUnder(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [relative(root, path)];
    });
  return walk(root).sort();
}
/** CLI input and output for `main`, keeping what it prints. */
export function captureIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: {},
    cwd: process.cwd(),
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    lines,
    errors,
  };
}
/** A fresh temporary folder named with `prefix`, removed after the suite. */
export function useTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

#!/usr/bin/env node
// Finds *.test.ts files under the given folders and runs them with node:test through tsx
// (Node 20 has no glob support for --test, so the list is built here).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const roots = process.argv.slice(2);
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.test.ts')) files.push(path);
  }
};
for (const root of roots) {
  if (statSync(root).isDirectory()) walk(root);
  else files.push(root);
}
files.sort();
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}`);
  process.exit(1);
}
const extra = process.env.TEST_ONLY ? ['--test-name-pattern', process.env.TEST_ONLY] : [];
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...extra, ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);

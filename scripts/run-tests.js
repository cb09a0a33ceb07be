#!/usr/bin/env node
// Finds *.test.ts files under the given folders and runs them with node:test through tsx
// (Node 20 has no glob support for --test, so the list is built here).
// The TAP stream passes through as it comes; the failing tests' blocks are printed again at the end,
// so that the last lines of a long run (what a CI log keeps) name what failed and why.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FailureCollector } from './tap-failures.js';

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
// A test file still running after fifteen minutes (the slowest takes about one on a quiet machine) holds a hung
// test: it fails with the file's name instead of holding the whole run until an outer time limit kills it.
const TEST_TIMEOUT_MS = Number(process.env.AMBIT_TEST_TIMEOUT_MS) || 900_000;
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    ...extra,
    ...files,
  ],
  { stdio: ['inherit', 'pipe', 'inherit'] },
);
const failures = new FailureCollector();
createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
  process.stdout.write(`${line}\n`);
  failures.push(line);
});
child.on('close', (code, signal) => {
  const summary = failures.summary();
  if (summary.length > 0)
    process.stdout.write(`\n# failing tests (repeated from above)\n${summary.join('\n')}\n`);
  process.exit(code ?? (signal ? 1 : 0));
});

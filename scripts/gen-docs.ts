// Writes the generated docs (`npm run docs:gen`), or with --check fails when a committed one is stale (`npm run docs:check`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GENERATED_DOCS } from './docs/generated-docs.ts';

let flags: { check?: boolean; root?: string };
try {
  // --root points at another checkout (used by the drift test); it defaults to this repository.
  flags = parseArgs({
    options: { check: { type: 'boolean' }, root: { type: 'string' } },
    strict: true,
  }).values;
} catch (error) {
  console.error(`gen-docs: ${(error as Error).message}\nusage: gen-docs.ts [--check] [--root DIR]`);
  process.exit(2);
}
const root = flags.root ? resolve(flags.root) : fileURLToPath(new URL('../', import.meta.url));

const stale: { path: string; reason: string }[] = [];
for (const doc of GENERATED_DOCS) {
  const file = join(root, doc.path);
  const wanted = doc.render();
  const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (current === wanted) continue;
  if (flags.check) {
    stale.push({ path: doc.path, reason: current === undefined ? 'is missing' : 'is stale' });
  } else {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, wanted);
    console.log(`wrote ${doc.path}`);
  }
}
if (stale.length > 0) {
  for (const { path, reason } of stale) {
    console.error(`${path} ${reason}: it differs from what scripts/gen-docs.ts generates.`);
  }
  console.error('Run `npm run docs:gen` and commit the result.');
  process.exit(1);
}
if (flags.check)
  console.log(`generated docs are up to date: ${GENERATED_DOCS.map((doc) => doc.path).join(', ')}`);

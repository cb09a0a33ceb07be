#!/usr/bin/env node
// Entry point of the `ambit` CLI: runs the compiled build of src/ (bin/build.js builds it on first use and after
// a source changes). AMBIT_FROM_SOURCE=1, or a build that cannot be made, runs the TypeScript sources through tsx.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildFailureReason, ensureBuild } from './build.js';

// A reader that goes away early (`ambit keys generate | head -1`) ends the output, not in a stack trace: stop quietly
// with the status a Unix tool killed by SIGPIPE has (128 + 13), so `set -o pipefail` still sees it.
// Any other write failure (a full disk, a closed descriptor) is said in one line, not as a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(141);
  const reason = /^[A-Z0-9_]+: (.+?)(?:, \w+)?$/.exec(error.message)?.[1];
  const cause = error.code === undefined ? error.message : `${error.code}${reason ? ` (${reason})` : ''}`;
  process.stderr.write(`ambit: cannot write the output: ${cause}\n`);
  process.exit(1);
});

let entry;
if (process.env.AMBIT_FROM_SOURCE !== '1') {
  try {
    entry = pathToFileURL(join(await ensureBuild(), 'cli', 'main.js')).href;
  } catch (error) {
    process.stderr.write(
      `ambit: running from the TypeScript sources (no compiled build: ${buildFailureReason(error)})\n`,
    );
  }
}
if (entry === undefined) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = new URL('../src/cli/main.ts', import.meta.url).href;
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));

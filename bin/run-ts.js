#!/usr/bin/env node
// Runs one TypeScript file (repository scripts) through the tsx loader.
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: run-ts.js <file.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], file, ...rest];
await import(pathToFileURL(file).href);

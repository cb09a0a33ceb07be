#!/usr/bin/env node
// Entry point of the `ambit` CLI: registers the TypeScript loader and runs the command dispatcher.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

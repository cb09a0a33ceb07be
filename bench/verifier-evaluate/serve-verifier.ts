// Bench child: starts one verifier in its own (CPU-pinned) process and reports readiness as a JSON line on stdout.
import { compiledServiceDeps, importCompiled } from '../shared/import-compiled.ts';

const { loadVerifierConfig } = await importCompiled<
  typeof import('../../src/verifier/config/load-verifier-config.ts')
>('verifier/config/load-verifier-config');
const { startVerifier } =
  await importCompiled<typeof import('../../src/verifier/start-verifier.ts')>('verifier/start-verifier');

export interface ServeVerifierReport {
  readonly event: 'ready';
  readonly pid: number;
  readonly url: string;
}

const [configPath, bind] = process.argv.slice(2);
if (configPath === undefined || bind === undefined) {
  console.error('usage: serve-verifier.ts <config.yaml> <host:port>');
  process.exit(2);
}

const loaded = loadVerifierConfig(configPath, process.env);
const deps = await compiledServiceDeps('bench-verifier');
const running = await startVerifier(loaded, deps, bind);
const report: ServeVerifierReport = { event: 'ready', pid: process.pid, url: running.url };
process.stdout.write(`${JSON.stringify(report)}\n`);

// A normal exit lets --cpu-prof write its profile and the audit file flush.
const stop = (): void => {
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

// Bench child: starts one verifier in its own (CPU-pinned) process and reports readiness as a JSON line on stdout.
import { importCompiled } from '../shared/import-compiled.ts';

const { systemClock } = await importCompiled<typeof import('../../src/platform/clock.ts')>('platform/clock');
const { createLogger } = await importCompiled<typeof import('../../src/platform/log.ts')>('platform/log');
const { systemRandom } =
  await importCompiled<typeof import('../../src/platform/random.ts')>('platform/random');
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
const logger = createLogger({ name: 'bench-verifier', level: 'warn' });
const running = await startVerifier(loaded, { logger, clock: systemClock, random: systemRandom }, bind);
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

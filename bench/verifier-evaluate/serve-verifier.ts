// Bench child: starts one verifier in its own (CPU-pinned) process and reports readiness as a JSON line on stdout.
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { loadVerifierConfig } from '../../src/verifier/config/load-verifier-config.ts';
import { startVerifier } from '../../src/verifier/start-verifier.ts';

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

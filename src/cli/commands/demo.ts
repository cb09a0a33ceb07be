// `ambit demo` (npm start): the demo relay on bundled data with generated keys, and requests to try.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuditFileInUse } from '../../platform/audit/audit-file-lock.ts';
import { systemClock } from '../../platform/clock.ts';
import { isBindAddress } from '../../platform/config/bind-address.ts';
import { ConfigError } from '../../platform/config/config-error.ts';
import { createLogger } from '../../platform/log.ts';
import { PACKAGE_ROOT } from '../../platform/package-root.ts';
import { systemRandom } from '../../platform/random.ts';
import { untilAborted } from '../../platform/until-aborted.ts';
import { loadRelayConfig, loadRelayConfigText } from '../../relay/config/load-relay-config.ts';
import { startRelay } from '../../relay/start-relay.ts';
import { loadVerifierConfig } from '../../verifier/config/load-verifier-config.ts';
import { type RunningVerifier, startVerifier } from '../../verifier/start-verifier.ts';
import type { Command } from '../cli-io.ts';
import { demoInUse } from '../demo-already-running.ts';
import { DEMO_PERSONAS, demoKeysProblem, ensureDemoKeys, personaVar } from '../demo-keys.ts';
import { prepareDemoPostgres, withPostgresDataset } from '../demo-postgres.ts';
import { demoRelayAddressEnv, localUrl } from '../demo-relay-address.ts';
import { postgresExamples, relayExamples } from '../demo-relay-examples.ts';
import { demoStateDir } from '../demo-state-dir.ts';
import { verifierExamples } from '../demo-verifier-examples.ts';
import { failedListenAddress } from '../listen-error.ts';
import { flagError, parseFlags } from '../parse-flags.ts';
import { readLogLevel } from '../read-log-level.ts';
import { reportStartupError } from '../report-startup-error.ts';
import { endStoppedStart, shutdownRequested } from '../shutdown-requested.ts';

const DEMO_DIR = `${join(PACKAGE_ROOT, 'demo')}/`;

export const demo: Command = async (args, io) => {
  // No flags: the environment variables in demo/README.md move the listeners and the state folder.
  try {
    parseFlags(args, {});
  } catch (error) {
    io.err(`${flagError(error)} (the demo takes no flags; see demo/README.md for its environment variables)`);
    return 2;
  }
  const level = readLogLevel(io, 'warn');
  if (level === 2) return 2;
  // A malformed listen address is said with the variable's name, before anything is written (the configs
  // would report it as their own `server.bind`, not saying which of the two).
  for (const [name] of DEMO_LISTENERS) {
    const value = io.env[name];
    if (value && !isBindAddress(value)) {
      io.err(`${name} must be host:port with a port from 0 to 65535 (0: any free port), not ${value}`);
      return 2;
    }
  }
  // AMBIT_DEMO_STATE_DIR moves the generated keys and the audit files (tests use a temporary folder).
  const stateDir = demoStateDir(io.env, io.cwd, DEMO_DIR);
  const keysPath = join(stateDir, 'demo-keys.env');
  // As the serve commands: listened for before anything is written or started (seeding a database that does not
  // answer may wait indefinitely), so a signal meanwhile stops the start cleanly rather than ending the process at
  // once. A terminal that closes sends SIGHUP: the demo stops then too.
  const stop = new AbortController();
  const shutdown = shutdownRequested('single', io.err, 'stop').then(() => stop.abort());
  let keys: ReturnType<typeof ensureDemoKeys>;
  try {
    keys = ensureDemoKeys(keysPath);
  } catch (error) {
    // A state folder that is a file, or not writable: said in one line, not as a stack trace.
    io.err(
      `cannot keep the demo keys in ${keysPath}: ${error instanceof Error ? error.message : String(error)}; ` +
        'set AMBIT_DEMO_STATE_DIR to a folder the demo may write',
    );
    return 1;
  }
  const keysProblem = keys.created ? undefined : demoKeysProblem(keys.env);
  if (keysProblem !== undefined) {
    io.err(
      `the demo keys file ${keysPath} cannot be reused (${keysProblem}): delete it to have new keys generated`,
    );
    return 1;
  }
  const logger = createLogger({ name: 'ambit-demo', level });
  try {
    // The relay's links and OpenAPI `servers` follow AMBIT_RELAY_BIND (demo/relay.yaml reads both variables).
    // The configs read the state folder too, as the absolute path the keys went to.
    const env: Record<string, string | undefined> = {
      ...io.env,
      ...keys.env,
      ...(await demoRelayAddressEnv(io.env)),
      AMBIT_DEMO_STATE_DIR: stateDir,
    };
    // Seeding rewrites the table a demo already running may serve live: a start that would stop anyway (its state
    // folder or an address taken) stops first.
    if (env.DATABASE_URL) {
      const busy = await demoInUse(
        stateDir,
        DEMO_LISTENERS.map(([name, fallback]) => io.env[name] || fallback),
      );
      if (busy !== undefined) throw busy;
    }
    const withPostgres = await untilAborted(prepareDemoPostgres(env.DATABASE_URL, io.err), stop.signal);
    const loaded = withPostgres
      ? loadRelayConfigText(
          withPostgresDataset(
            readFileSync(`${DEMO_DIR}relay.yaml`, 'utf8'),
            `${DEMO_DIR}relay.postgres-dataset.yaml`,
          ),
          env,
          DEMO_DIR,
        )
      : loadRelayConfig(`${DEMO_DIR}relay.yaml`, env);
    const deps = { logger, clock: systemClock, random: systemRandom };
    const running = await startRelay(loaded, deps, loaded.config.server.bind, { signal: stop.signal });
    // The verifier reads the relay wherever it bound (AMBIT_RELAY_BIND may pick another port).
    let verifier: RunningVerifier;
    try {
      const verifierLoaded = loadVerifierConfig(`${DEMO_DIR}verifier.yaml`, {
        ...env,
        // A relay bound to every interface (0.0.0.0) is reached on loopback.
        AMBIT_DEMO_RELAY_URL: localUrl(running.url),
      });
      verifier = await startVerifier(verifierLoaded, deps, verifierLoaded.config.server.bind, stop.signal);
    } catch (error) {
      await running.close();
      throw error;
    }
    printWelcome(io.out, running.url, keys.env, keys.created ? 'generated' : 'reused', keysPath);
    if (withPostgres)
      for (const line of postgresExamples(running.url, keys.env[personaVar('caseworker', 'KEY')] ?? ''))
        io.out(line);
    printVerifierWelcome(io.out, verifier, keys.env);
    io.out('Press Ctrl+C to stop.');
    await shutdown;
    io.out('shutting down: draining in-flight requests (a second Ctrl-C exits at once)');
    await verifier.close();
    await running.close();
    return 0;
  } catch (error) {
    if (stop.signal.aborted) endStoppedStart(io.out);
    if (auditFileInUse(error)) {
      io.err(
        `is the demo already running? Its audit files in ${stateDir} are in use by another process; stop it, or ` +
          `start this one with its own AMBIT_DEMO_STATE_DIR (and ${DEMO_LISTENERS.map(([name]) => name).join(', ')}: ` +
          'host:port; port 0 picks a free one)',
      );
      return 1;
    }
    return reportStartupError(error, io.err, demoListenHint(error, io.env));
  }
};

/**
 * A second demo over the same state folder meets the first one's audit file lock before any listener: said in the
 * demo's terms, since the generic advice (give each process its own `audit.path`) names a config the user never wrote.
 */
function auditFileInUse(error: unknown): boolean {
  if (error instanceof AuditFileInUse) return true;
  return error instanceof ConfigError && error.issues.some((issue) => issue.code === 'audit.sink_in_use');
}

/** The demo's listeners: the variable that moves each, and its default (demo/relay.yaml, demo/verifier.yaml). */
const DEMO_LISTENERS = [
  ['AMBIT_RELAY_BIND', '127.0.0.1:4242'],
  ['AMBIT_VERIFIER_BIND', '127.0.0.1:4343'],
  ['AMBIT_VERIFIER_ADMIN_BIND', '127.0.0.1:4344'],
] as const;

/** After a listener could not bind: which variable moves it (all three when the address matches none). */
function demoListenHint(error: unknown, env: Readonly<Record<string, string | undefined>>): string {
  const failed = failedListenAddress(error);
  const named = DEMO_LISTENERS.filter(([name, fallback]) => (env[name] || fallback) === failed).map(
    ([name]) => name,
  );
  const names = named.length > 0 ? named : DEMO_LISTENERS.map(([name]) => name);
  return `is the demo already running? Stop it, or move the demo with ${names.join(', ')} (host:port; port 0 picks a free one)`;
}

function printWelcome(
  out: (line: string) => void,
  url: string,
  env: Record<string, string>,
  how: string,
  path: string,
) {
  const key = (id: string) => env[personaVar(id, 'KEY')] ?? '';
  out(`Ambit Relay demo listening on ${url}`);
  out(`Demo API keys (${how}, stored in ${path}):`);
  for (const persona of DEMO_PERSONAS) out(`  ${persona.id.padEnd(17)} ${key(persona.id)}  (${persona.can})`);
  out('');
  for (const line of relayExamples(url, key)) out(line);
}

function printVerifierWelcome(
  out: (line: string) => void,
  running: RunningVerifier,
  env: Record<string, string>,
) {
  const key = (id: string) => env[personaVar(id, 'KEY')] ?? '';
  const adminUrl = running.adminUrl ?? '';
  out('');
  out(`Ambit Verifier demo listening on ${running.url} (admin listener ${adminUrl}); it reads the relay as`);
  out(
    'verifier_service. Claims: cel, exists, extract, a composite over two datasets, and a plugin claim (501).',
  );
  out(
    'Try (caseworker evaluates; health_planner holds no verifier scope; operator may call the admin listener):',
  );
  const examples = verifierExamples(running.url, adminUrl, {
    caseworker: key('caseworker'),
    healthPlanner: key('health_planner'),
    operator: key('operator'),
  });
  for (const example of examples) out(`  ${example}`);
  out(`  ${running.url}/docs   (in a browser; paste the caseworker key to browse the verifier API)`);
}

// A relay over PostgreSQL sources for HTTP tests: the `datasets` YAML is the test's, everything else is fixed (one
// API key holding every scope of dataset `registry`, a temporary audit file, the URL in DATABASE_URL_UNDER_TEST),
// with an admin listener and an operator key when asked.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'light-my-request';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { type Clock, systemClock } from '../../src/platform/clock.ts';
import { type Logger, silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createRelayApp, type RelayApp } from '../../src/relay/app.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { SourceError } from '../../src/relay/sources/source-error.ts';
import { injectThroughLane } from './inject-through-lane.ts';

export const READER_KEY = 'test-key-postgres-reader-000000001';
export const OPERATOR_KEY = 'test-key-postgres-operator-0000001';
export const URL_ENV = 'DATABASE_URL_UNDER_TEST';

export interface PostgresRelay {
  readonly relay: RelayApp;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** A request to the admin listener with the operator key (`admin: true` only). */
  admin(method: 'GET' | 'POST', path: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The relay config of `postgresRelayConfig` over `datasetsYaml`, loaded against the database at `databaseUrl` with
 * the reader's key and no audit file: for tests that drive the PostgreSQL sources without serving.
 */
export function loadPostgresRelayConfig(datasetsYaml: string, databaseUrl: string) {
  return loadRelayConfigText(
    postgresRelayConfig(datasetsYaml, '/dev/null'),
    {
      READER_HASH: fingerprintOf(READER_KEY),
      AUDIT_SECRET: 'test-audit-secret-postgres-0123456789',
      [URL_ENV]: databaseUrl,
    },
    '/tmp',
  );
}

export function postgresRelayConfig(
  datasetsYaml: string,
  auditPath: string,
  admin = false,
  requestTimeout?: string,
): string {
  return `
server:
  bind: 127.0.0.1:0${admin ? '\n  admin_bind: 127.0.0.1:0' : ''}${requestTimeout ? `\n  request_timeout: ${requestTimeout}` : ''}
catalog:
  title: Relay over PostgreSQL
  base_url: https://relay.example.org
  publisher: Test Registry Office
auth:
  mode: api_key
  api_keys:
    - id: reader
      fingerprint: { provider: env, name: READER_HASH }
      scopes: [registry:metadata, registry:rows]${
        admin
          ? `
    - id: operator
      fingerprint: { provider: env, name: OPERATOR_HASH }
      scopes: [relay:admin, relay:metrics_read]`
          : ''
      }
audit:
  sink: jsonl
  path: ${auditPath}
  hash_secret_env: AUDIT_SECRET
datasets:
${datasetsYaml}`;
}

/** Creates the relay; `waitForLoad: false` returns at once (for tests of a database that is down at start). */
/** The source error a relay over `datasetsYaml` fails to start with (an error when it starts). */
export async function startupFailure(url: string, datasetsYaml: string): Promise<SourceError> {
  try {
    const relay = await startPostgresRelay(datasetsYaml, url);
    await relay.close();
  } catch (error) {
    if (error instanceof SourceError) return error;
    throw error;
  }
  throw new Error('the relay was expected to fail to start');
}

export async function startPostgresRelay(
  datasetsYaml: string,
  databaseUrl: string,
  options: {
    waitForLoad?: boolean;
    sourceRetryMs?: number;
    admin?: boolean;
    clock?: Clock;
    /** `server.request_timeout` (`500ms`...); the default otherwise. */
    requestTimeout?: string;
    /** Where the relay logs; nowhere by default. */
    logger?: Logger;
  } = {},
): Promise<PostgresRelay> {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-pg-relay-'));
  const env = {
    READER_HASH: fingerprintOf(READER_KEY),
    OPERATOR_HASH: fingerprintOf(OPERATOR_KEY),
    AUDIT_SECRET: 'test-audit-secret-postgres-0123456789',
    [URL_ENV]: databaseUrl,
  };
  const config = postgresRelayConfig(
    datasetsYaml,
    join(dir, 'audit.jsonl'),
    options.admin,
    options.requestTimeout,
  );
  const loaded = loadRelayConfigText(config, env, dir);
  const relay = createRelayApp(loaded, {
    logger: options.logger ?? silentLogger(),
    clock: options.clock ?? systemClock,
    random: systemRandom,
    sourceRetryMs: options.sourceRetryMs ?? 50,
  });
  const close = async () => {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  };
  if (options.waitForLoad !== false) {
    try {
      await relay.loaded;
    } catch (error) {
      await close();
      throw error;
    }
  }
  return {
    relay,
    get: (path, headers = {}) =>
      injectThroughLane(relay.app, {
        method: 'GET',
        url: path,
        headers: { authorization: `Bearer ${READER_KEY}`, ...headers },
      }),
    admin(method, path) {
      if (!relay.admin) throw new TypeError('started without an admin listener');
      return relay.admin.inject({ method, url: path, headers: { authorization: `Bearer ${OPERATOR_KEY}` } });
    },
    close,
  };
}

/** Polls until `check` holds (a test fails on its own timeout if it never does); no timing is asserted. */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  limitMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A TCP forwarder standing in front of the database, so a test can take "the database" away and bring it back on
 * the same address: closed, connections are refused; `cut()` also drops the connections already open.
 */
export interface DatabaseSwitch {
  /** postgres:// URL of the database through the forwarder. */
  readonly url: string;
  open(): Promise<void>;
  cut(): Promise<void>;
  /**
   * The connections open now stop carrying anything, both ways, without closing (a network partition or a frozen
   * server); new connections are not affected. `cut` closes them.
   */
  silence(): void;
  close(): Promise<void>;
}

export async function databaseSwitch(databaseUrl: string): Promise<DatabaseSwitch> {
  const target = new URL(databaseUrl);
  const targetPort = Number(target.port || 5432);
  const targetHost = target.hostname;
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  // Reserve a free port, then release it: the forwarder listens there whenever it is open.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  const cut = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  return {
    url: url.toString(),
    async open() {
      if (server) return;
      const listening = createServer((client) => {
        const upstream = new Socket();
        sockets.add(client);
        sockets.add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        upstream.connect(targetPort, targetHost, () => {
          client.pipe(upstream);
          upstream.pipe(client);
        });
      });
      await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
      server = listening;
    },
    cut,
    silence() {
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    close: cut,
  };
}

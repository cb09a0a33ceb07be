// The relay's admin listener over a stand-in backend (what a primary of `--workers N` would answer), for tests of
// the listener's own answers: an operator with `relay:admin` unless told otherwise, no metrics, no process status.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import type { RelayAdminBackend } from '../../src/relay/admin/admin-backend.ts';
import {
  createRelayAdminApp,
  type RelayAdminAppOptions,
} from '../../src/relay/admin/create-relay-admin-app.ts';
import { type LoadedRelayConfig, loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { createReloadFixture, reloadEnv } from './reload-fixture.ts';

export function standInAdminApp(
  loaded: LoadedRelayConfig,
  backend: Pick<RelayAdminBackend, 'reloadAll' | 'reloadTable'> & Partial<RelayAdminBackend>,
  options: Partial<Omit<RelayAdminAppOptions, 'loaded' | 'backend'>> = {},
): FastifyInstance {
  return createRelayAdminApp({
    loaded,
    authenticate: () => ({
      id: 'operator',
      authMode: 'api_key',
      scopes: new Set(['relay:admin']),
      credentialTag: 'operator',
    }),
    processes: 2,
    requestTimeoutMs: 5000,
    deps: { logger: silentLogger(), clock: systemClock, random: systemRandom },
    ...options,
    backend: { metrics: async () => [], status: async () => [], ...backend },
  });
}

/** The reload fixture's config with an `instance:` block (YAML flow text) in front, loaded with `env` added. */
export function loadWithInstance(instance: string, env: Record<string, string> = {}): LoadedRelayConfig {
  const fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
  try {
    writeFileSync(fixture.configPath, `instance: ${instance}\n${readFileSync(fixture.configPath, 'utf8')}`);
    return loadRelayConfig(fixture.configPath, { ...reloadEnv(), ...env });
  } finally {
    fixture.remove();
  }
}

/** A stand-in admin app for a caller holding `relay:ops_read` only; any reload fails the test. */
export function opsAdminApp(loaded: LoadedRelayConfig): FastifyInstance {
  const unused = async () => assert.fail('no reload here');
  return standInAdminApp(
    loaded,
    { reloadAll: unused, reloadTable: unused },
    {
      authenticate: () => ({
        id: 'ops',
        authMode: 'api_key',
        scopes: new Set(['relay:ops_read']),
        credentialTag: 'ops',
      }),
    },
  );
}

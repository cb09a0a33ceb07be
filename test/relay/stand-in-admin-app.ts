// The relay's admin listener over a stand-in backend (what a primary of `--workers N` would answer), for tests of
// the listener's own answers: an operator with `relay:admin` unless told otherwise, no metrics, no process status.
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import type { RelayAdminBackend } from '../../src/relay/admin/admin-backend.ts';
import {
  createRelayAdminApp,
  type RelayAdminAppOptions,
} from '../../src/relay/admin/create-relay-admin-app.ts';
import type { LoadedRelayConfig } from '../../src/relay/config/load-relay-config.ts';

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

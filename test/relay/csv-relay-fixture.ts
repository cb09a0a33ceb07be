// A relay over CSV files written to a temp folder, one API key holding the given scopes, served through the fast
// lane: for tests that need a dataset of their own shape (aggregate disclosure, for one).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'light-my-request';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createRelayApp, type RelayApp } from '../../src/relay/app.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { injectThroughLane } from '../helpers/inject-through-lane.ts';

const KEY = 'csv-relay-fixture-key-00000000000001';
const ENV = { AUDIT_SECRET: 'csv-relay-fixture-audit-secret-012345678', KEY_HASH: fingerprintOf(KEY) };

/** The config's head: listener, catalog, the key with these scopes, a JSONL audit; `datasets:` follows. */
export function csvRelayHead(scopes: readonly string[]): string {
  return `server: { bind: 127.0.0.1:0 }
catalog: { title: T, base_url: "http://relay.test", publisher: Test }
auth:
  mode: api_key
  api_keys:
    - { id: k, fingerprint: { provider: env, name: KEY_HASH }, scopes: ${JSON.stringify(scopes)} }
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
`;
}

export interface CsvRelay {
  get(url: string): Promise<Response>;
  /** `body` as JSON, or as it is when it is already JSON text (a number JSON.stringify cannot spell, `1e-400`). */
  post(url: string, body: unknown): Promise<Response>;
  close(): Promise<void>;
}

/** Writes `files` (name to text) to a temp folder and starts a relay on `config` there. */
export async function startCsvRelay(
  config: string,
  files: Readonly<Record<string, string | Uint8Array>>,
): Promise<CsvRelay> {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-csv-relay-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  let relay: RelayApp | undefined;
  try {
    relay = createRelayApp(loadRelayConfigText(config, ENV, dir), {
      logger: silentLogger(),
      clock: systemClock,
      random: systemRandom,
    });
    await relay.loaded;
    await relay.app.ready();
  } catch (error) {
    await relay?.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const app = relay;
  const authorization = `Bearer ${KEY}`;
  return {
    get: (url) => injectThroughLane(app.app, { method: 'GET', url, headers: { authorization } }),
    post: (url, body) =>
      injectThroughLane(app.app, {
        method: 'POST',
        url,
        headers: { authorization, 'content-type': 'application/json' },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

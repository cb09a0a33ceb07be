// Starts the demo relay in-process for HTTP tests, with fixed test keys and a temporary audit file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { InjectOptions, Response } from 'light-my-request';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createRelayApp, type RelayApp } from '../../src/relay/app.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { injectThroughLane } from './inject-through-lane.ts';

export const DEMO_DIR = fileURLToPath(new URL('../../demo/', import.meta.url));

export const TEST_KEYS = {
  catalog_viewer: 'test-key-catalog-viewer-000000000001',
  caseworker: 'test-key-caseworker-0000000000000001',
  analyst: 'test-key-analyst-000000000000000001',
  health_planner: 'test-key-health-planner-00000000001',
  verifier_service: 'test-key-verifier-service-000000001',
  operator: 'test-key-operator-00000000000000001',
} as const;

export type Persona = keyof typeof TEST_KEYS;

export const PURPOSE = 'https://demo.example.gov/purpose/benefit-eligibility';
export const AUDIT_SECRET = 'test-audit-secret-0123456789abcdef0123';
export const CURSOR_SECRET = 'test-cursor-secret-0123456789abcdef012';

export function demoEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    AMBIT_DEMO_AUDIT_SECRET: AUDIT_SECRET,
    AMBIT_DEMO_CURSOR_SECRET: CURSOR_SECRET,
  };
  for (const [persona, key] of Object.entries(TEST_KEYS)) {
    env[`AMBIT_DEMO_${persona.toUpperCase()}_HASH`] = fingerprintOf(key);
  }
  return { ...env, ...overrides };
}

/** The demo config text with the audit file moved to `auditPath` and optional text edits applied. */
export function demoConfigText(auditPath: string, edit: (text: string) => string = (text) => text): string {
  const text = readFileSync(join(DEMO_DIR, 'relay.yaml'), 'utf8').replace(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal YAML text of an env reference
    'path: ${AMBIT_DEMO_STATE_DIR:-var}/audit.jsonl',
    `path: ${auditPath}`,
  );
  return edit(text);
}

export interface TestRelay {
  readonly app: FastifyInstance;
  readonly relay: RelayApp;
  readonly auditPath: string;
  get(path: string, options?: { as?: Persona; headers?: Record<string, string> }): Promise<Response>;
  inject(options: InjectOptions): Promise<Response>;
  auditRecords(): Record<string, unknown>[];
  close(): Promise<void>;
}

/** The demo relay as it starts, its sources still loading (no audit file): for answers given meanwhile. */
export function loadingDemoRelay(): RelayApp {
  const loaded = loadRelayConfigText(demoConfigText('/dev/null'), demoEnv(), DEMO_DIR);
  return createRelayApp(loaded, { logger: silentLogger(), clock: systemClock, random: systemRandom });
}

export async function startDemoRelay(
  options: { env?: Record<string, string>; edit?: (text: string) => string; clock?: Clock } = {},
): Promise<TestRelay> {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-relay-test-'));
  const auditPath = join(dir, 'audit.jsonl');
  const loaded = loadRelayConfigText(demoConfigText(auditPath, options.edit), demoEnv(options.env), DEMO_DIR);
  const relay = createRelayApp(loaded, {
    logger: silentLogger(),
    clock: options.clock ?? systemClock,
    random: systemRandom,
  });
  await relay.loaded;
  await relay.app.ready();
  return {
    app: relay.app,
    relay,
    auditPath,
    get(path, { as, headers = {} } = {}) {
      const auth = as ? { authorization: `Bearer ${TEST_KEYS[as]}` } : {};
      return injectThroughLane(relay.app, { method: 'GET', url: path, headers: { ...auth, ...headers } });
    },
    inject: (injectOptions) => injectThroughLane(relay.app, injectOptions),
    auditRecords() {
      const text = readFileSync(auditPath, 'utf8').trim();
      return text === '' ? [] : text.split('\n').map((line) => JSON.parse(line).record);
    },
    async close() {
      await relay.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

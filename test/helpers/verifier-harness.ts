// Starts a verifier in-process for HTTP tests: a test config over one or two relays, fixed caller keys and a
// temporary audit file. Relays are real processes' worth of server (demo relay listening on loopback).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions, Response } from 'light-my-request';
import { keyedHash } from '../../src/platform/audit/keyed-hash.ts';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { type Clock, systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createVerifierApp, type VerifierApp, type VerifierDeps } from '../../src/verifier/app.ts';
import { loadVerifierConfigText } from '../../src/verifier/config/load-verifier-config.ts';
import { injectThroughLane } from './inject-through-lane.ts';
import { TEST_KEYS } from './relay-harness.ts';

export const CALLER_KEYS = {
  full: 'verifier-test-key-full-0000000000001',
  civil_only: 'verifier-test-key-civil-000000000001',
  no_scopes: 'verifier-test-key-none-0000000000001',
  bearer_only: 'verifier-test-token-bearer-00000001',
} as const;
export type Caller = keyof typeof CALLER_KEYS;

export const VERIFIER_AUDIT_SECRET = 'verifier-test-audit-secret-0123456789ab';

/** The `correlation_id_hash` an audit event records for a caller's `x-request-id`. */
export function correlationIdHash(clientRequestId: string): string {
  return keyedHash(Buffer.from(VERIFIER_AUDIT_SECRET), 'correlation_id', clientRequestId);
}

/** The audit event of the request a caller sent with `x-request-id: clientRequestId`, if one was written. */
export function auditOfRequest(
  verifier: { auditRecords(): Record<string, unknown>[] },
  clientRequestId: string,
): Record<string, unknown> | undefined {
  const hash = correlationIdHash(clientRequestId);
  return verifier.auditRecords().find((record) => record.correlation_id_hash === hash);
}
export const EVIDENCE_PURPOSE = 'https://demo.example.gov/purpose/benefit-eligibility';
export const CLAIM_RESULT = 'application/vnd.ambit.claim-result+json';
export const CCCEV = 'application/ld+json; profile="cccev"';
/** Config lines of a claim that needs no source: true for any person. */
export const ALWAYS_TRUE_CLAIM_LINES: readonly string[] = [
  '    - id: always',
  '      title: Always true',
  '      version: "1"',
  '      subject_type: person',
  '      value: { type: boolean }',
  `      rule: { type: cel, expression: "ctx.target.type == 'person'" }`,
  '      disclosure: { default: predicate, allowed: [predicate] }',
];

export function verifierEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    V_FULL_HASH: fingerprintOf(CALLER_KEYS.full),
    V_CIVIL_HASH: fingerprintOf(CALLER_KEYS.civil_only),
    V_NONE_HASH: fingerprintOf(CALLER_KEYS.no_scopes),
    V_BEARER_HASH: fingerprintOf(CALLER_KEYS.bearer_only),
    V_AUDIT_SECRET: VERIFIER_AUDIT_SECRET,
    // Two relay credentials: the verifier_service persona for the civil relay, the caseworker for the social one.
    RELAY_CIVIL_TOKEN: TEST_KEYS.verifier_service,
    RELAY_SOCIAL_TOKEN: TEST_KEYS.caseworker,
    ...overrides,
  };
}

/** The test config: claims of every rule type over a civil relay and a social-protection relay. */
export function verifierConfigText(
  relays: { civil?: string; social?: string },
  auditPath: string,
  options: { bulk?: boolean } = {},
): string {
  const bulk = options.bulk ? '      bulk_mode: rda_in_filter\n' : '';
  const connection = (name: string, url: string | undefined, token: string) =>
    url === undefined
      ? ''
      : `    ${name}:
      base_url: ${url}
      token_env: ${token}
      allow_insecure_localhost: true
      retry: { max_attempts: 3, base_delay: 10ms, max_delay: 50ms, max_retry_after: 5s }
${bulk}`;
  const connections = `${connection('relay_civil', relays.civil, 'RELAY_CIVIL_TOKEN')}${connection('relay_social', relays.social, 'RELAY_SOCIAL_TOKEN')}`;
  return readFileSync(new URL('../verifier/verifier.config.yaml', import.meta.url), 'utf8')
    .replace('__AUDIT_PATH__', auditPath)
    .replace(
      '  source_connections: {}\n',
      connections === '' ? '  source_connections: {}\n' : `  source_connections:\n${connections}`,
    );
}

/**
 * A batchable claim that a person is alive, looked up by a target attribute (or `input`, another target path) in
 * `dataset` (the civil registry unless given): YAML to append to the test config's claims.
 */
export function aliveByAttributeClaim(options: {
  readonly id: string;
  readonly title: string;
  readonly field: string;
  readonly attribute?: string;
  readonly input?: string;
  readonly dataset?: string;
}): string {
  return `
    - id: ${options.id}
      title: ${options.title}
      version: "1"
      subject_type: person
      value: { type: boolean }
      source_bindings:
        person:
          connector: registry_data_api
          connection: relay_civil
          required_scope: civil:evidence
          dataset: ${options.dataset ?? 'civil_registry'}
          entity: persons
          lookup: { input: ${options.input ?? `target.attributes.${options.attribute}`}, field: ${options.field} }
          fields: [deceased]
      rule: { type: cel, expression: "!source.person.deceased" }
      disclosure: { default: predicate, allowed: [predicate] }
      operations: { batch_evaluate: { enabled: true } }
`;
}

export interface TestVerifier {
  readonly verifier: VerifierApp;
  readonly auditPath: string;
  evaluate(body: unknown, options?: { as?: Caller; headers?: Record<string, string> }): Promise<Response>;
  /** POSTs JSON to any route, as `evaluate` does (caller key, Data-Purpose; an empty header value drops it). */
  post(
    path: string,
    body: unknown,
    options?: { as?: Caller; headers?: Record<string, string> },
  ): Promise<Response>;
  get(path: string, options?: { as?: Caller; headers?: Record<string, string> }): Promise<Response>;
  inject(options: InjectOptions): Promise<Response>;
  auditRecords(): Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startTestVerifier(
  options: {
    relays?: { civil?: string; social?: string };
    /** Connections read batches with `.in` filters (`bulk_mode: rda_in_filter`). */
    bulk?: boolean;
    edit?: (text: string) => string;
    env?: Record<string, string>;
    clock?: Clock;
    deps?: Partial<VerifierDeps>;
  } = {},
): Promise<TestVerifier> {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-verifier-test-'));
  const auditPath = join(dir, 'audit.jsonl');
  const edit = options.edit ?? ((text: string) => text);
  const text = edit(verifierConfigText(options.relays ?? {}, auditPath, { bulk: options.bulk ?? false }));
  const loaded = loadVerifierConfigText(text, verifierEnv(options.env), dir);
  const verifier = createVerifierApp(loaded, {
    logger: silentLogger(),
    clock: options.clock ?? systemClock,
    random: systemRandom,
    sleep: async () => {},
    ...options.deps,
  });
  await verifier.app.ready();
  const auth = (as: Caller | undefined): Record<string, string> =>
    as === undefined
      ? {}
      : as === 'bearer_only'
        ? { authorization: `Bearer ${CALLER_KEYS[as]}` }
        : { 'x-api-key': CALLER_KEYS[as] };
  const post = (
    path: string,
    body: unknown,
    { as = 'full', headers = {} }: { as?: Caller; headers?: Record<string, string> } = {},
  ) => {
    const all: Record<string, string> = {
      // Without a body there is no content type either, as with `curl -X POST`.
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      'data-purpose': EVIDENCE_PURPOSE,
      ...auth(as),
      ...headers,
    };
    // An empty value in `headers` removes the header (to send no Data-Purpose, for example).
    for (const [name, value] of Object.entries(all)) if (value === '') delete all[name];
    // Through the node:http listener, as a socket delivers it: the routes on the fast lane are tested as served.
    return injectThroughLane(verifier.app, {
      method: 'POST',
      url: path,
      headers: all,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  };
  return {
    verifier,
    auditPath,
    evaluate(body, options) {
      return post('/v1/evaluations', body, options);
    },
    post: (path, body, options) => post(path, body, options),
    get(path, { as, headers = {} } = {}) {
      return verifier.app.inject({ method: 'GET', url: path, headers: { ...auth(as), ...headers } });
    },
    inject: (injectOptions) => injectThroughLane(verifier.app, injectOptions),
    auditRecords() {
      let text = '';
      try {
        text = readFileSync(auditPath, 'utf8').trim();
      } catch {
        return [];
      }
      return text === '' ? [] : text.split('\n').map((line) => JSON.parse(line).record);
    },
    async close() {
      await verifier.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

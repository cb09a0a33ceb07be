// `ambit config check` on a verifier config whose claim orders caller input against a record value: it loads, and
// says that a caller can bisect the value with repeated evaluations (docs/verifier.md, Disclosure).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { useScratchDir } from '../cli/cli-fixture.ts';
import { DEMO_DIR, demoEnv, TEST_KEYS } from '../helpers/relay-harness.ts';
import { runCli } from '../helpers/run-cli.ts';

const ENV = {
  CALLER_HASH: fingerprintOf('order-warning-key-000000000000001'),
  AUDIT_SECRET: 'order-warning-audit-secret-0123456789ab',
  RELAY_TOKEN: 'relay-token',
};

const config = (expression: string) => `server: { bind: 127.0.0.1:0 }
auth:
  mode: api_key
  api_keys: [{ id: caller, fingerprint: { provider: env, name: CALLER_HASH }, scopes: [civil:evidence] }]
audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }
evidence:
  service_id: cli.verifier
  source_connections:
    relay: { base_url: "http://127.0.0.1:4242", token_env: RELAY_TOKEN, allow_insecure_localhost: true }
  claims:
    - id: born-after
      title: Born after a date
      version: "1"
      subject_type: person
      value: { type: boolean }
      source_bindings:
        p:
          connector: registry_data_api
          connection: relay
          required_scope: civil:evidence
          dataset: civil_registry
          entity: persons
          lookup: { input: target.identifiers.national_id, field: national_id }
          fields: [birth_date]
      rule: { type: cel, expression: "${expression}" }
      disclosure: { default: predicate, allowed: [predicate] }
`;

const scratch = useScratchDir();

describe('ambit config check: a claim ordering caller input against a record value', () => {
  it('prints the ok line, then a warning naming the claim and the comparison, and exits 0', async () => {
    const path = join(scratch.dir, 'ordered.yaml');
    writeFileSync(path, config('source.p.birth_date >= ctx.target.attributes.born_after'));
    const result = await runCli(['config', 'check', '--config', path], ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.deepEqual(result.err, []);
    assert.deepEqual(result.out, [
      `ok: ${path} (verifier, 1 claim, 1 source connection, auth api_key)`,
      '  warning: claim born-after compares caller input with a record value by order (source.p.birth_date >= ctx.target.attributes.born_after): a caller can find the value by repeated evaluations; compare for equality, or limit who may evaluate it (docs/verifier.md, Disclosure)',
    ]);
  });

  it('prints no warning for an equality with caller input', async () => {
    const path = join(scratch.dir, 'equal.yaml');
    writeFileSync(path, config('source.p.birth_date == ctx.target.attributes.birth_date'));
    const result = await runCli(['config', 'check', '--config', path], ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.deepEqual(result.out, [`ok: ${path} (verifier, 1 claim, 1 source connection, auth api_key)`]);
  });

  it('prints no such warning for the demo config', async () => {
    const env = demoEnv({ AMBIT_DEMO_VERIFIER_SERVICE_KEY: TEST_KEYS.verifier_service });
    const result = await runCli(['config', 'check', '--config', join(DEMO_DIR, 'verifier.yaml')], env);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.match(result.out[0] ?? '', /^ok: .*verifier\.yaml \(verifier, /);
    assert.deepEqual(
      result.out.filter((line) => line.includes('by order')),
      [],
    );
  });
});

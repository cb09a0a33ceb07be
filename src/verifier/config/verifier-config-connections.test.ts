// Verifier config checked at load: source URLs, token variables, caller auth, signing keys, state, bulk.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadVerifierConfigText } from './load-verifier-config.ts';
import { BASE, ENV, issuesOf } from './verifier-config-test-support.ts';

describe('verifier config', () => {
  it('guards source URLs: metadata and link-local addresses, plain http without a flag', () => {
    const text = BASE.replace(
      'relay: { base_url: "http://127.0.0.1:4242", token_env: RELAY_TOKEN, allow_insecure_localhost: true }',
      `relay: { base_url: "http://127.0.0.1:4242", token_env: RELAY_TOKEN }
    meta: { base_url: "https://169.254.169.254", token_env: RELAY_TOKEN }
    mapped: { base_url: "https://[::ffff:169.254.169.254]", token_env: RELAY_TOKEN }
    gcp: { base_url: "https://metadata.google.internal", token_env: RELAY_TOKEN }`,
    );
    const messages = issuesOf(text).map((i) => `${i.path}: ${i.message}`);
    assert.ok(
      messages.some((m) => /relay\.base_url: http needs allow_insecure_localhost/.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /relay\.base_url: loopback addresses need allow_insecure_localhost/.test(m)),
    );
    assert.ok(messages.some((m) => /meta\.base_url: metadata addresses need allow_link_local/.test(m)));
    assert.ok(messages.some((m) => /mapped\.base_url: metadata addresses need allow_link_local/.test(m)));
    assert.ok(messages.some((m) => /gcp\.base_url: names a cloud metadata host/.test(m)));
  });

  it('refuses a dataset or entity named as a dot segment, which would change the path read', () => {
    const text = BASE.replace('dataset: civil_registry', 'dataset: ".."').replace(
      'entity: persons',
      'entity: "."',
    );
    const messages = issuesOf(text).map((issue) => `${issue.path}: ${issue.message}`);
    assert.ok(
      messages.some((m) => /\.dataset: a dataset named `\.` or `\.\.` would change the path read/.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /\.entity: an? entity named `\.` or `\.\.`/.test(m)),
      messages.join('\n'),
    );
    // A dot inside a name is no dot segment.
    loadVerifierConfigText(BASE.replace('dataset: civil_registry', 'dataset: "civil.registry"'), ENV, '/tmp');
  });

  it('refuses a variable reference where a variable name belongs, without quoting the expanded secret', () => {
    const token = 'Bearer-Secret-Token-Value-000000000000001';
    const text = BASE.replace('token_env: RELAY_TOKEN', `token_env: ${'$'}{RELAY_TOKEN}`);
    const issues = issuesOf(text, { ...ENV, RELAY_TOKEN: token });
    assert.deepEqual(
      issues.map((issue) => `${issue.path}: ${issue.message}`),
      [
        'evidence.source_connections.relay.token_env: must name an environment variable (letters, digits and _), not hold its value: write the name, not its expansion',
      ],
    );
    assert.ok(!JSON.stringify(issues).includes(token));
  });

  it('fails closed without caller credentials, and keeps one auth mode', () => {
    const none = BASE.replace(/ {2}api_keys:\n.*\n/, '');
    assert.ok(issuesOf(none).some((i) => i.path === 'auth' && /at least one/.test(i.message)));
    const both = BASE.replace('mode: api_key', 'mode: oidc');
    const paths = issuesOf(both).map((i) => i.path);
    assert.ok(paths.includes('auth.api_keys') && paths.includes('auth.oidc'));
  });

  it('validates signing keys, credential profiles and the state block', () => {
    const text = BASE.concat(`  signing_keys:
    k1: { provider: local_jwk_env, kid: "did:web:v.example#k1" }
  credential_profiles:
    p1:
      format: application/dc+sd-jwt
      issuer: did:web:v.example
      signing_key: k2
      vct: https://v.example/credentials/alive/v1
      allowed_claims: [alive, ghost]
state: { storage: postgresql }
`);
    const messages = issuesOf(text).map((i) => `${i.path}: ${i.message}`);
    for (const expected of [
      /signing_keys\.k1\.private_jwk_env: is required/,
      /p1\.signing_key: unknown signing key `k2` \(did you mean `k1`\?\)/,
      /p1\.allowed_claims\.1: unknown claim `ghost`/,
      /state\.postgresql: is required/,
    ]) {
      assert.ok(
        messages.some((m) => expected.test(m)),
        `${expected} not in\n${messages.join('\n')}`,
      );
    }
  });

  it('refuses a state.postgresql block the memory store would ignore', () => {
    // Without `storage: postgresql` each instance would keep its own evaluations and idempotency keys, silently.
    const text = BASE.concat('state: { postgresql: { url_env: STATE_URL } }\n');
    const issues = issuesOf(text, { ...ENV, STATE_URL: 'postgres://v:secret@db:5432/v' });
    assert.deepEqual(
      issues.map((i) => `${i.path}: ${i.message}`),
      [
        'state.postgresql: must be absent when state.storage is memory (the default); set state.storage: postgresql to use it',
      ],
    );
    const explicit = BASE.concat('state: { storage: memory, postgresql: { url_env: STATE_URL } }\n');
    assert.equal(issuesOf(explicit, ENV)[0]?.path, 'state.postgresql');
  });

  it('refuses a memory store too small to keep one whole batch', () => {
    const batch = (limit: number, kept: number, storage = 'memory') =>
      BASE.replace(
        '  service_id: test.verifier',
        `  service_id: test.verifier\n  inline_batch_limit: ${limit}`,
      ).concat(
        `state: { storage: ${storage}, max_memory_evaluations: ${kept}${storage === 'postgresql' ? ', postgresql: { url_env: STATE_URL }' : ''} }\n`,
      );
    const refused = issuesOf(batch(500, 499), ENV);
    assert.deepEqual(
      refused.map((i) => [i.path, i.message]),
      [
        [
          'state.max_memory_evaluations',
          'must be at least evidence.inline_batch_limit (500): a batch stores one evaluation per item, and the store would drop its first items while storing it',
        ],
      ],
    );
    assert.equal(
      loadVerifierConfigText(batch(500, 500), ENV, '/tmp').config.state.max_memory_evaluations,
      500,
    );
    // The PostgreSQL store keeps no such count.
    const url = 'postgres://v@127.0.0.1/v';
    assert.equal(
      loadVerifierConfigText(batch(500, 10, 'postgresql'), { ...ENV, STATE_URL: url }, '/tmp').config.state
        .storage,
      'postgresql',
    );
  });

  it('reads the PostgreSQL state URL from its variable, never echoing it, and validates bulk reads', () => {
    const text = BASE.concat(`state:
  storage: postgresql
  postgresql: { url_env: STATE_URL, connect_timeout: 2s }
`);
    const loaded = loadVerifierConfigText(
      text,
      { ...ENV, STATE_URL: 'postgres://v:secret@db:5432/v' },
      '/tmp',
    );
    assert.equal(loaded.secrets.stateUrl, 'postgres://v:secret@db:5432/v');
    assert.equal(loaded.config.state.postgresql?.connect_timeout, 2_000);
    assert.equal(loaded.config.state.postgresql?.operation_timeout, 5_000);
    const missing = issuesOf(text);
    assert.ok(
      missing.some((i) => i.path === 'state.postgresql.url_env' && i.code === 'config.missing_secret'),
    );
    const wrong = issuesOf(text, { ...ENV, STATE_URL: 'mysql://v:secret@db/v' });
    const issue = wrong.find((i) => i.path === 'state.postgresql.url_env');
    assert.match(issue?.message ?? '', /must hold a postgres:\/\/ or postgresql:\/\/ URL/);
    assert.ok(!JSON.stringify(wrong).includes('secret@db'), 'the URL is not echoed');
    assert.equal(loadVerifierConfigText(BASE, ENV, '/tmp').secrets.stateUrl, undefined);
    // URLs the driver can never use are refused at load (the service would start and never be ready).
    for (const [url, message] of [
      ['postgres://v:secret@[bad/v', /must hold a postgres:\/\/ or postgresql:\/\/ URL/],
      ['postgres://v:secret@db:notaport/v', /must hold a postgres:\/\/ or postgresql:\/\/ URL/],
      ['postgres://v:secret@db/v?sslmode=require&sslrootcert=/no/such/ca.pem', /certificate or key file/],
      ['postgres://v:secret@db1,db2/v', /several hosts/],
    ] as const) {
      const refused = issuesOf(text, { ...ENV, STATE_URL: url });
      const found = refused.find((i) => i.path === 'state.postgresql.url_env');
      assert.match(found?.message ?? '', message, url);
      assert.ok(!JSON.stringify(refused).includes('secret@'), 'the URL is not echoed');
    }

    const bulk = BASE.replace(
      'allow_insecure_localhost: true }',
      'allow_insecure_localhost: true, bulk_mode: rda_in_filter }',
    );
    const connection = loadVerifierConfigText(bulk, ENV, '/tmp').config.evidence.source_connections.relay;
    assert.equal(connection?.bulk_mode, 'rda_in_filter');
    assert.equal(connection?.bulk_max_values, 100);
    // The reference contract's attestation for `.in` reads loads (it is not needed here).
    const attested = bulk.replace(
      'bulk_mode: rda_in_filter',
      'bulk_mode: rda_in_filter, bulk_mode_lookup_unique: true',
    );
    assert.equal(
      loadVerifierConfigText(attested, ENV, '/tmp').config.evidence.source_connections.relay?.bulk_mode,
      'rda_in_filter',
    );
    const messages = issuesOf(
      BASE.replace(
        'allow_insecure_localhost: true }',
        'allow_insecure_localhost: true, bulk_mode: sidecar, bulk_max_values: 101 }',
      ),
    ).map((i) => i.path);
    assert.ok(messages.includes('evidence.source_connections.relay.bulk_mode'), messages.join());
    assert.ok(messages.includes('evidence.source_connections.relay.bulk_max_values'), messages.join());
    const coalescing = issuesOf(
      BASE.replace(
        'allow_insecure_localhost: true }',
        'allow_insecure_localhost: true, coalesce_reads: true }',
      ),
    );
    assert.deepEqual(
      coalescing.map((i) => i.path),
      ['evidence.source_connections.relay.coalesce_reads'],
    );
  });
});

describe('verifier state URL in clear to another host', () => {
  const load = (url: string) =>
    loadVerifierConfigText(
      BASE.concat('state: { storage: postgresql, postgresql: { url_env: STATE_URL } }\n'),
      { ...ENV, STATE_URL: url },
      '/tmp',
    ).warnings.filter((warning) => warning.startsWith('state.postgresql'));

  it('loads, with a warning that stored evaluations would cross the network in clear', () => {
    const [warning, ...more] = load('postgres://v:secret@db.example.org:5432/v');
    assert.equal(more.length, 0);
    assert.match(warning ?? '', /STATE_URL .*not on a loopback address.*without TLS/);
    assert.doesNotMatch(warning ?? '', /secret|db\.example\.org/, 'the URL is never quoted');
  });

  it('warns of nothing over TLS or on this machine', () => {
    assert.deepEqual(load('postgres://v:secret@db.example.org:5432/v?sslmode=verify-full'), []);
    assert.deepEqual(load('postgres://v:secret@127.0.0.1:5432/v'), []);
    assert.deepEqual(load('postgres://v@localhost/v?host=/var/run/postgresql'), []);
  });
});

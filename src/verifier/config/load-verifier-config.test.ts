import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprintOf } from '../../platform/auth/api-key.ts';
import { ConfigError } from '../../platform/config/config-error.ts';
import { loadVerifierConfigText } from './load-verifier-config.ts';

const ENV = {
  CALLER_HASH: fingerprintOf('caller-key'),
  AUDIT_SECRET: 'a'.repeat(32),
  RELAY_TOKEN: 'relay-token',
};

const BASE = `
auth:
  mode: api_key
  api_keys:
    - { id: caller, fingerprint: { provider: env, name: CALLER_HASH }, scopes: [civil:evidence] }
audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }
evidence:
  service_id: test.verifier
  source_connections:
    relay: { base_url: "http://127.0.0.1:4242", token_env: RELAY_TOKEN, allow_insecure_localhost: true }
  claims:
    - id: alive
      title: Alive
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
          fields: [deceased]
      rule: { type: cel, expression: "!source.p.deceased" }
      disclosure: { default: predicate, allowed: [predicate, redacted] }
`;

function issuesOf(
  text: string,
  env: Record<string, string> = ENV,
): { path: string; code: string; message: string }[] {
  try {
    loadVerifierConfigText(text, env, '/tmp');
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return [...error.issues];
  }
  assert.fail('expected a ConfigError');
}

describe('verifier config', () => {
  it('loads a minimal config with defaults and frozen values', () => {
    const { config, secrets, warnings } = loadVerifierConfigText(BASE, ENV, '/tmp');
    assert.equal(config.server.bind, '127.0.0.1:8081');
    assert.equal(config.state.storage, 'memory');
    assert.equal(config.state.evaluation_retention, 900_000);
    assert.equal(config.cel.eval_timeout, 2000);
    const claim = config.evidence.claims[0];
    assert.deepEqual(claim?.formats, [
      'application/vnd.ambit.claim-result+json',
      'application/ld+json; profile="cccev"',
    ]);
    assert.equal(claim?.operations.evaluate.enabled, true);
    assert.equal(secrets.sourceTokens.get('relay'), 'relay-token');
    assert.equal(secrets.apiKeys[0]?.fingerprint, ENV.CALLER_HASH);
    assert.deepEqual(warnings, []);
    assert.ok(Object.isFrozen(config.evidence.claims));
  });

  it('starts without any source connection, warning that the claim source is not configured', () => {
    const text = BASE.replace(/ {2}source_connections:\n.*\n/, '');
    const { warnings } = loadVerifierConfigText(text, ENV, '/tmp');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] as string, /connection relay, which is not configured/);
  });

  it('rejects unknown keys with a hint, and lists every problem at once', () => {
    const text = BASE.replace(
      'service_id: test.verifier',
      'service_id: test.verifier\n  servce_id: x',
    ).replace('subject_type: person', 'subject_type: person\n      depends_on: [nope]');
    const issues = issuesOf(text, { ...ENV, AUDIT_SECRET: 'short' });
    const byPath = new Map(issues.map((i) => [i.path, i.message]));
    assert.match(
      byPath.get('evidence.servce_id') ?? '',
      /unknown key `servce_id` \(did you mean `service_id`\?\)/,
    );
    // Shape errors stop before the semantic checks, as for the relay.
    assert.equal(issues.length, 1);
    const semantic = issuesOf(
      BASE.replace('subject_type: person', 'subject_type: person\n      depends_on: [nope]'),
      {
        ...ENV,
        AUDIT_SECRET: 'short',
        RELAY_TOKEN: '',
      },
    );
    const paths = semantic.map((i) => i.path).sort();
    assert.deepEqual(paths, [
      'audit.hash_secret_env',
      'evidence.claims.0.depends_on.0',
      'evidence.source_connections.relay.token_env',
    ]);
  });

  it('refuses CCCEV links that are not absolute IRIs, naming each path among the other problems', () => {
    const withCccev = (cccev: string) =>
      BASE.replace(
        '      disclosure: { default: predicate, allowed: [predicate, redacted] }\n',
        `      disclosure: { default: predicate, allowed: [predicate, redacted] }\n      cccev: ${cccev}\n`,
      );
    const text = withCccev(
      '{ requirement: REQ-001, evidence_type_iri: "https://example.org/evidence types/x" }',
    ).replace('service_id: test.verifier', 'service_id: test.verifier\n  servce_id: x');
    const issues = issuesOf(text);
    assert.deepEqual(issues.map((i) => i.path).sort(), [
      'evidence.claims.0.cccev.evidence_type_iri',
      'evidence.claims.0.cccev.requirement',
      'evidence.servce_id',
    ]);
    for (const issue of issues.filter((i) => i.path.includes('cccev')))
      assert.match(issue.message, /must be an absolute IRI/);
    for (const invalid of [
      '"x:<y>"',
      '"https://example.org/r#a#b"',
      '"https://example.org/e%zz"',
      '"r1"',
      '""',
    ]) {
      const found = issuesOf(withCccev(`{ requirement: ${invalid}, evidence_type_iri: "urn:example:e1" }`));
      assert.deepEqual(
        found.map((i) => i.path),
        ['evidence.claims.0.cccev.requirement'],
        invalid,
      );
    }
    for (const [requirement, evidenceType] of [
      ['urn:example:requirement:r1', 'https://example.org/evidence-types/e1#v2'],
      ['http://[::1]/r%20s', 'did:web:example.org'],
    ] as const) {
      const { config } = loadVerifierConfigText(
        withCccev(`{ requirement: "${requirement}", evidence_type_iri: "${evidenceType}" }`),
        ENV,
        '/tmp',
      );
      assert.deepEqual(config.evidence.claims[0]?.cccev, { requirement, evidence_type_iri: evidenceType });
    }
  });

  it('bounds durations that end up in a timer, reporting them together', () => {
    const text = `server: { bind: "127.0.0.1:8081", request_timeout: 2h }\ncel: { eval_timeout: 25d }\n${BASE}`;
    const messages = issuesOf(text).map((i) => `${i.path}: ${i.message}`);
    assert.deepEqual(messages.sort(), [
      'cel.eval_timeout: is out of range (10ms to 1m)',
      'server.request_timeout: is out of range (1ms to 1h)',
    ]);
    const longest = `server: { bind: "127.0.0.1:8081", request_timeout: 1h }\n${BASE}`;
    assert.equal(loadVerifierConfigText(longest, ENV, '/tmp').config.server.request_timeout, 3_600_000);
  });

  it('checks each trusted proxy at load as an address, a CIDR range or a named range', () => {
    const withProxies = (list: string) =>
      `server: { bind: "127.0.0.1:8081", trust_proxy: { enabled: true, trusted_proxies: ${list} } }\n${BASE}`;
    const issues = issuesOf(withProxies('["not-an-ip", "10.0.0.0/99", "10.0.0.0/8"]'));
    assert.deepEqual(
      issues.map((i) => `${i.code} @ ${i.path}`),
      [
        'config.validation_error @ server.trust_proxy.trusted_proxies.0',
        'config.validation_error @ server.trust_proxy.trusted_proxies.1',
      ],
    );
    assert.match(issues[0]?.message ?? '', /^must be an IP address, a CIDR range/);
    assert.doesNotMatch(issues.map((i) => i.message).join('\n'), /not-an-ip|10\.0\.0\.0\/99/);
    const accepted =
      '["10.0.0.1", "10.0.0.0/255.0.0.0", "fd00::/8", "::1", loopback, linklocal, uniquelocal]';
    const { config } = loadVerifierConfigText(withProxies(accepted), ENV, '/tmp');
    assert.equal(config.server.trust_proxy.trusted_proxies.length, 7);
  });

  it('rotates only the file sink, and requires the path of a file or jsonl sink', () => {
    const withAudit = (audit: string) =>
      `server: { bind: "127.0.0.1:8081" }\n${BASE.replace('audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }', audit)}`;
    const messages = (audit: string) => issuesOf(withAudit(audit)).map((i) => `${i.path}: ${i.message}`);
    assert.deepEqual(
      messages(
        'audit: { sink: jsonl, path: a.jsonl, hash_secret_env: AUDIT_SECRET, rotate: { max_files: 2 } }',
      ),
      [
        'audit.rotate: applies to the file sink only (the jsonl sink appends to one file); use sink: file to rotate',
      ],
    );
    assert.deepEqual(messages('audit: { sink: stdout, hash_secret_env: AUDIT_SECRET, rotate: {} }'), [
      'audit.rotate: applies to the file sink only (the stdout sink has no file); use sink: file to rotate',
    ]);
    assert.deepEqual(messages('audit: { sink: file, hash_secret_env: AUDIT_SECRET }'), [
      'audit.path: is required for the file sink',
    ]);
    const rotating =
      'audit: { sink: file, path: a.jsonl, hash_secret_env: AUDIT_SECRET, rotate: { max_files: 2 } }';
    assert.equal(loadVerifierConfigText(withAudit(rotating), ENV, '/tmp').config.audit.rotate?.max_files, 2);
  });

  it('takes declared request inputs with their types; an id or identifier is a string', () => {
    const withInputs = (inputs: string) =>
      BASE.replace('      rule: { type: cel', `      inputs: ${inputs}\n      rule: { type: cel`);
    const { config } = loadVerifierConfigText(
      withInputs(
        '[{ name: target.attributes.age, type: integer }, { name: target.identifiers.national_id, type: string }]',
      ),
      ENV,
      '/tmp',
    );
    assert.deepEqual(config.evidence.claims[0]?.inputs, [
      { name: 'target.attributes.age', type: 'integer' },
      { name: 'target.identifiers.national_id', type: 'string' },
    ]);
    assert.deepEqual(
      issuesOf(
        withInputs('[{ name: target.identifiers.national_id, type: integer }, { name: age, type: integer }]'),
      ).map((issue) => issue.path),
      ['evidence.claims.0.inputs.0.type', 'evidence.claims.0.inputs.1.name'],
    );
  });

  it('rejects dependency cycles at load', () => {
    const claim = (id: string, dep: string) => `
    - id: ${id}
      title: ${id}
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [${dep}]
      rule: { type: cel, expression: "claims.${dep}.value" }`;
    const text = `${BASE}${claim('a', 'b')}${claim('b', 'c')}${claim('c', 'a')}`;
    const issues = issuesOf(text).filter((i) => i.message.startsWith('dependency cycle'));
    assert.equal(issues.length, 1);
    assert.match(issues[0]?.message ?? '', /a -> b -> c -> a/);
  });

  it('checks rules: binding aliases, extract fields, CEL syntax and claim bindings, predicate on non-booleans', () => {
    const text = BASE.replace(
      'rule: { type: cel, expression: "!source.p.deceased" }',
      'rule: { type: extract, source: q, field: x }',
    )
      .replace('value: { type: boolean }', 'value: { type: string }')
      .concat(`
    - id: broken_cel
      title: Broken
      version: "1"
      subject_type: person
      rule: { type: cel, expression: "1 +", bindings: { claims: { a: { claim: alive } } } }
`);
    const messages = issuesOf(text).map((i) => `${i.path}: ${i.message}`);
    assert.ok(
      messages.some((m) => /rule\.source: no source binding `q` \(did you mean `p`\?\)/.test(m)),
      messages.join('\n'),
    );
    assert.ok(messages.some((m) => /source_bindings\.p: is not read by the extract rule/.test(m)));
    assert.ok(
      messages.some((m) => /claims\.0\.disclosure\.allowed: `predicate` needs value\.type boolean/.test(m)),
    );
    assert.ok(messages.some((m) => /claims\.1\.rule\.expression: does not parse/.test(m)));
    assert.ok(
      messages.some((m) => /bindings\.claims\.a\.claim: `alive` must be listed in depends_on/.test(m)),
    );
  });

  it('refuses CEL expressions naming what the claim does not bind: names, bindings, fields, members, functions', () => {
    const claim = (id: string, expression: string, extra = '') => `
    - id: ${id}
      title: ${id}
      version: "1"
      subject_type: person${extra}
      rule: { type: cel, expression: "${expression}" }`;
    const text = BASE.concat(
      claim('typo_root', '!sourse.p.deceased'),
      claim('no_binding', 'source.q.deceased'),
      claim(
        'unbound_field',
        "source.p.national_id == 'x'",
        BASE.slice(BASE.indexOf('\n      source_bindings:'), BASE.indexOf('\n      rule:')),
      ),
      claim('no_dependency', 'claims.dead.value', '\n      depends_on: [alive]'),
      claim('no_member', 'claims.alive.valeu', '\n      depends_on: [alive]'),
      claim('no_ctx_member', "ctx.todey > '2020'"),
      claim('no_function', "ctx.purpose.lowerAscii() == 'x' && foo(1)"),
      // What exists: locals shadowing roots, quoted ids, has() on any field, type names, macros, ctx.target members.
      claim(
        'fine',
        "[1].map(source, source + 1).size() == 1 && claims['alive'].satisfied == true && has(ctx.target.attributes.x) && type(1) == int && type(timestamp('2020-01-01T00:00:00Z')) == google.protobuf.Timestamp && [1].exists(v, v == int(ctx.target.attributes.n))",
        '\n      depends_on: [alive]',
      ),
    );
    const messages = issuesOf(text).map((i) => `${i.path}: ${i.message}`);
    const expected = [
      'evidence.claims.1.rule.expression: refers to `sourse`; the expression sees source, claims and ctx',
      'evidence.claims.2.rule.expression: reads `source.q`, but the claim has no source binding `q`',
      'evidence.claims.3.rule.expression: reads `source.p.national_id`, but `national_id` is not in source_bindings.p.fields',
      'evidence.claims.4.rule.expression: reads `claims.dead`, but no dependency is bound as `dead`',
      'evidence.claims.5.rule.expression: reads `claims.alive.valeu`; a dependency has value, satisfied, claim_id, version',
      'evidence.claims.6.rule.expression: reads `ctx.todey`; ctx has purpose, today, target',
      'evidence.claims.7.rule.expression: calls `lowerAscii`, which is not a CEL function here',
      'evidence.claims.7.rule.expression: calls `foo`, which is not a CEL function here',
    ];
    assert.deepEqual(
      messages.filter((m) => m.includes('rule.expression')),
      expected,
    );
  });

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

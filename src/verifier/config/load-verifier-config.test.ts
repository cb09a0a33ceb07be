// Loading a verifier config: defaults, unknown keys, and the server and audit settings checked at load.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commitmentOf } from '../../platform/auth/api-key.ts';
import { loadVerifierConfigText } from './load-verifier-config.ts';
import { BASE, ENV, issuesOf } from './verifier-config-test-support.ts';

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

  it('warns of a claim any credential may evaluate though it reads a source (no scope on it or its parts)', () => {
    const text = BASE.replace('          required_scope: civil:evidence\n', '');
    const { warnings } = loadVerifierConfigText(text, ENV, '/tmp');
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /^claim \S+ reads a source and requires no scope: any credential of this verifier may evaluate it/,
    );
  });

  it('warns of a cel claim that may disclose its value over a sub-claim that never discloses its own', () => {
    const parent = (allowed: string) => `    - id: alive_flag
      title: Alive flag
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [alive]
      rule: { type: cel, expression: "claims.alive" }
      disclosure: { default: predicate, allowed: [${allowed}] }
`;
    const warned = loadVerifierConfigText(`${BASE}${parent('value, predicate')}`, ENV, '/tmp').warnings;
    assert.deepEqual(warned, [
      'claim alive_flag may disclose its value and depends on alive, which never discloses a value: whatever its expression returns of them is disclosed as its own value, so make sure it returns no more than they would (or allow it predicate or redacted only)',
    ]);
    // Disclosing no value, it passes none on.
    assert.deepEqual(loadVerifierConfigText(`${BASE}${parent('predicate')}`, ENV, '/tmp').warnings, []);
    // Nor does a sub-claim that may disclose its value itself.
    const open = BASE.replace('allowed: [predicate, redacted]', 'allowed: [value, predicate, redacted]');
    assert.deepEqual(
      loadVerifierConfigText(`${open}${parent('value, predicate')}`, ENV, '/tmp').warnings,
      [],
    );
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

  it('names the replacement of a credential key from earlier configs, for bearer tokens as for API keys', () => {
    const text = BASE.replace(
      '    - { id: caller, fingerprint: { provider: env, name: CALLER_HASH }, scopes: [civil:evidence] }',
      `    - { id: caller, fingerprint: { provider: env, name: CALLER_HASH }, scopes: [civil:evidence] }
  bearer_tokens:
    - { id: old_hash, hash_env: CALLER_HASH, scopes: [] }
    - { id: old_raw, token_env: CALLER_HASH, scopes: [] }`,
    );
    const byPath = new Map(issuesOf(text).map((i) => [i.path, `${i.code}: ${i.message}`]));
    assert.equal(
      byPath.get('auth.bearer_tokens.0.hash_env'),
      'config.parse_error: `hash_env` moved to `fingerprint: {provider: env, name}`',
    );
    assert.equal(
      byPath.get('auth.bearer_tokens.1.token_env'),
      'config.parse_error: raw tokens are not accepted: use `fingerprint`',
    );
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
    // What the address parser would read otherwise: 8.0.0.0/8 (octal), 0.0.0.1 (not a hop count), 127.0.0.1.
    const odd = issuesOf(withProxies('["010.0.0.0/8", "1", "127.1", "0x0a.0.0.0/8", "10.0.0.0/08"]'));
    assert.deepEqual(
      odd.map((i) => i.path),
      [0, 1, 2, 3, 4].map((at) => `server.trust_proxy.trusted_proxies.${at}`),
    );
  });

  it('refuses trust_proxy enabled without a proxy, as the relay does', () => {
    const text = `server: { bind: "127.0.0.1:8081", trust_proxy: { enabled: true } }\n${BASE}`;
    const issues = issuesOf(text);
    assert.deepEqual(
      issues.map((i) => `${i.path}: ${i.message}`),
      ['server.trust_proxy.trusted_proxies: list the proxies to trust when trust_proxy is enabled'],
    );
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

  it('refuses a relay commitment, saying which command prints a verifier one', () => {
    const pinned = (commitment: string) =>
      BASE.replace('name: CALLER_HASH }', `name: CALLER_HASH, commitment: "${commitment}" }`);
    const forRelay = commitmentOf('ambit-relay', 'caller', ENV.CALLER_HASH);
    const issues = issuesOf(pinned(forRelay));
    assert.deepEqual(
      issues.map((i) => i.path),
      ['auth.api_keys.0.fingerprint.commitment'],
    );
    assert.match(issues[0]?.message ?? '', /ambit keys generate --id caller --for verifier/);
    const forVerifier = commitmentOf('ambit-verifier', 'caller', ENV.CALLER_HASH);
    assert.equal(loadVerifierConfigText(pinned(forVerifier), ENV, '/tmp').secrets.apiKeys.length, 1);
  });
});

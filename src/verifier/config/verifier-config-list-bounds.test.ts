// The lists and mappings of a verifier config have a maximum count, and the names and texts in them a maximum length:
// an absurd config is refused at load, at its path, rather than slowing every start and request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BASE, ENV, issuesAt } from './verifier-config-test-support.ts';

const SIGNING_ENV = { ...ENV, ISSUER_JWK: '{"kty":"OKP"}' };
const CLAIM = 'evidence.claims.0';
const BINDING = `${CLAIM}.source_bindings.p`;
const list = (n: number, item: (i: number) => string) =>
  `[${Array.from({ length: n }, (_, i) => item(i)).join(', ')}]`;
const lines = (n: number, indent: string, item: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => `${indent}${item(i)}\n`).join('');
/** BASE with `line` added to its one claim. */
const withClaimKey = (line: string) =>
  BASE.replace('      subject_type: person', `      subject_type: person\n      ${line}`);
const withRule = (rule: string) =>
  BASE.replace('rule: { type: cel, expression: "!source.p.deceased" }', `rule: ${rule}`);
/** BASE whose claim is offered through `profiles` (YAML mapping lines) signed by `keys` (YAML mapping lines). */
const issuing = (profiles: string, keys: string) =>
  `${withClaimKey('credential_profiles: [p1]')}  signing_keys:\n${keys}  credential_profiles:\n${profiles}`;
const KEY = '    k1: { provider: local_jwk_env, private_jwk_env: ISSUER_JWK, kid: "did:web:v.example#k1" }\n';
const profile = (id: string, extra = '') =>
  `    ${id}: { format: application/dc+sd-jwt, issuer: did:web:v.example, signing_key: k1, vct: "https://v.example/c", allowed_claims: [alive]${extra} }\n`;

/** Refused at `path` with `message` when `text(over)`, and nothing said at `path` when `text(max)`. */
function bounded(
  text: (n: number) => string,
  path: string,
  max: number,
  message: string,
  env: Record<string, string> = SIGNING_ENV,
) {
  const issues = (n: number) => issuesAt(text(n), path, env);
  assert.deepEqual(issues(max + 1), [{ code: 'config.validation_error', message }], path);
  assert.deepEqual(issues(max), [], path);
}

describe('verifier config list and text bounds', () => {
  it('caps the static credentials, inputs, fields, origins and proxies a config lists', () => {
    const credential = (i: number) => `{ id: c${i}, fingerprint: { provider: env, name: CALLER_HASH } }`;
    const credentials = (key: string) => (n: number) =>
      BASE.replace(/ {2}api_keys:\n.*\n/, `  ${key}: ${list(n, credential)}\n`);
    const server = (block: string) => `server: { ${block} }\n${BASE}`;
    const cases: [text: (n: number) => string, path: string, max: number][] = [
      [credentials('api_keys'), 'auth.api_keys', 1000],
      [credentials('bearer_tokens'), 'auth.bearer_tokens', 1000],
      // A request carries at most 1 id, 20 identifiers and 32 attributes.
      [
        (n) => withClaimKey(`inputs: ${list(n, (i) => `{ name: target.attributes.a${i}, type: string }`)}`),
        `${CLAIM}.inputs`,
        64,
      ],
      [
        (n) =>
          BASE.replace('fields: [deceased]', `fields: ${list(n, (i) => (i === 0 ? 'deceased' : `f${i}`))}`),
        `${BINDING}.fields`,
        1000,
      ],
      [
        (n) => withClaimKey(`credential_profiles: ${list(n, (i) => `p${i}`)}`),
        `${CLAIM}.credential_profiles`,
        1000,
      ],
      [
        (n) => server(`cors: { allowed_origins: ${list(n, (i) => `"https://a${i}.example"`)} }`),
        'server.cors.allowed_origins',
        1000,
      ],
      [
        (n) => server(`trust_proxy: { trusted_proxies: ${list(n, (i) => `10.0.${i >> 8}.${i & 255}`)} }`),
        'server.trust_proxy.trusted_proxies',
        1000,
      ],
    ];
    for (const [text, path, max] of cases) bounded(text, path, max, `must list at most ${max} items`);
  });

  it('caps a list of fixed values at the number of values there are', () => {
    const levels = (n: number) => list(n, () => 'redacted');
    const cases: [text: (n: number) => string, path: string, max: number][] = [
      [
        (n) => BASE.replace('allowed: [predicate, redacted]', `allowed: ${levels(n)}`),
        `${CLAIM}.disclosure.allowed`,
        3,
      ],
      [
        (n) => withClaimKey(`formats: ${list(n, () => 'application/vnd.ambit.claim-result+json')}`),
        `${CLAIM}.formats`,
        3,
      ],
      [
        (n) => issuing(profile('p1', `, disclosure: { allowed: ${levels(n)} }`), KEY),
        'evidence.credential_profiles.p1.disclosure.allowed',
        3,
      ],
      [
        (n) =>
          issuing(
            profile('p1', `, holder_binding: { allowed_did_methods: ${list(n, () => 'did:jwk')} }`),
            KEY,
          ),
        'evidence.credential_profiles.p1.holder_binding.allowed_did_methods',
        1,
      ],
      [
        (n) =>
          `${BASE.replace(
            'mode: api_key',
            'mode: oidc\n  oidc: { issuer: "https://idp.example", audiences: [v], jwks_url: "https://idp.example/jwks", allowed_algorithms: ALGS }',
          ).replace(
            'ALGS',
            list(n, () => 'ES256'),
          )}`,
        'auth.oidc.allowed_algorithms',
        4,
      ],
    ];
    for (const [text, path, max] of cases) {
      bounded(text, path, max, max === 1 ? 'must list at most one item' : `must list at most ${max} items`);
    }
  });

  it('caps the connections, keys, profiles, bindings and bound sub-claims a config maps', () => {
    const connections = (n: number) =>
      BASE.replace(
        '    relay: {',
        `${lines(n - 1, '    ', (i) => `c${i}: { base_url: "https://r.example", token_env: RELAY_TOKEN }`)}    relay: {`,
      );
    const keys = (n: number) =>
      issuing(
        profile('p1'),
        lines(
          n,
          '    ',
          (i) => `k${i + 1}: { provider: local_jwk_env, private_jwk_env: ISSUER_JWK, kid: "k${i}" }`,
        ),
      );
    const profiles = (n: number) =>
      issuing(
        lines(n, '', (i) => profile(`p${i + 1}`).slice(0, -1)),
        KEY,
      );
    const bindings = (n: number) =>
      BASE.replace(
        '        p:\n',
        `${lines(n - 1, '        ', (i) => `b${i}: { connector: registry_data_api, connection: relay, dataset: d, entity: e, lookup: { input: target.id, field: id } }`)}        p:\n`,
      );
    const boundClaims = (n: number) =>
      withRule(
        `{ type: cel, expression: "true", bindings: { claims: { ${Array.from({ length: n }, (_, i) => `a${i}: { claim: alive }`).join(', ')} } } }`,
      );
    const cases: [text: (n: number) => string, path: string, max: number, what: string][] = [
      [connections, 'evidence.source_connections', 1000, 'connections'],
      [keys, 'evidence.signing_keys', 1000, 'signing keys'],
      [profiles, 'evidence.credential_profiles', 1000, 'credential profiles'],
      [bindings, `${CLAIM}.source_bindings`, 64, 'source bindings'],
      [boundClaims, `${CLAIM}.rule.bindings.claims`, 64, 'sub-claims'],
    ];
    for (const [text, path, max, what] of cases) bounded(text, path, max, `must map at most ${max} ${what}`);
  });

  it('limits the names and texts of bindings, rules, profiles and environment variables', () => {
    const x = (n: number) => 'x'.repeat(n);
    const at = (max: number) => `must be at most ${max} characters`;
    const cases: [text: (n: number) => string, path: string, max: number, message: string][] = [
      [
        (n) =>
          withRule(`{ type: extract, source: p, field: ${x(n)} }`).replace(
            'fields: [deceased]',
            `fields: [${x(n)}]`,
          ),
        `${CLAIM}.rule.field`,
        128,
        at(128),
      ],
      [(n) => withRule(`{ type: plugin, plugin: ${x(n)} }`), `${CLAIM}.rule.plugin`, 128, at(128)],
      [
        (n) => BASE.replace('token_env: RELAY_TOKEN', `token_env: R${x(n - 1)}`),
        'evidence.source_connections.relay.token_env',
        256,
        at(256),
      ],
      [
        (n) => BASE.replace('name: CALLER_HASH', `name: C${x(n - 1)}`),
        'auth.api_keys.0.fingerprint.name',
        256,
        at(256),
      ],
      [
        (n) => `server: { cors: { allowed_origins: ["https://${x(n - 8)}"] } }\n${BASE}`,
        'server.cors.allowed_origins.0',
        2048,
        at(2048),
      ],
    ];
    // The longest names loaded name variables that are set.
    const env = { ...SIGNING_ENV, [`R${x(255)}`]: 'relay-token', [`C${x(255)}`]: ENV.CALLER_HASH };
    for (const [text, path, max, message] of cases) bounded(text, path, max, message, env);
    // An issuer is the DID of its key's `kid` (at most 512 characters) or an https origin: none as long loads.
    const issuer = issuing(
      profile('p1').replace('issuer: did:web:v.example', `issuer: "did:web:${x(2041)}"`),
      KEY,
    );
    assert.deepEqual(issuesAt(issuer, 'evidence.credential_profiles.p1.issuer', SIGNING_ENV), [
      { code: 'config.validation_error', message: at(2048) },
    ]);
  });

  it('limits the request inputs a claim names to what a request can send', () => {
    const lookup = (input: string) =>
      BASE.replace('input: target.identifiers.national_id', `input: target.${input}`);
    const scheme =
      'an identifier scheme is at most 128 characters and an attribute name at most 64, as a request sends them';
    bounded((n) => lookup(`identifiers.${'s'.repeat(n)}`), `${BINDING}.lookup.input`, 128, scheme);
    bounded((n) => lookup(`attributes.${'a'.repeat(n)}`), `${BINDING}.lookup.input`, 64, scheme);
    bounded(
      (n) => withClaimKey(`inputs: [{ name: target.attributes.${'a'.repeat(n)}, type: string }]`),
      `${CLAIM}.inputs.0.name`,
      64,
      scheme,
    );
  });
});

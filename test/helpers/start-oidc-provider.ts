// A real OpenID provider (oidc-provider) on 127.0.0.1 issuing client_credentials JWT access tokens for tests.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export type TestIdpAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

export interface StartOidcProviderOptions {
  /** Default resource indicator; it becomes the access token `aud`. */
  readonly audience?: string;
  /** Scopes any resource server grants; requested scopes outside this list are dropped by the provider. */
  readonly scopes?: readonly string[];
  /** client_credentials clients to register; the first is the default for `getToken`. */
  readonly clients?: readonly string[];
  readonly algorithm?: TestIdpAlgorithm;
  readonly tokenTtlSeconds?: number;
}

export interface GetTokenOptions {
  readonly clientId?: string;
  /** Resource indicator (token `aud`); any absolute URL is accepted. */
  readonly audience?: string;
  /** Extra claims merged into the token payload (for example a roles object). */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** Protected header members merged over the provider's own (for example `typ`). */
  readonly header?: Readonly<Record<string, unknown>>;
}

export interface TestOidcProvider {
  readonly issuer: string;
  readonly discoveryUrl: string;
  readonly jwksUrl: string;
  readonly tokenUrl: string;
  readonly audience: string;
  readonly clients: ReadonlyArray<{ readonly id: string; readonly secret: string }>;
  /** Kid of the key currently signing access tokens. */
  readonly currentKid: () => string;
  getToken(scopes: readonly string[] | string, options?: GetTokenOptions): Promise<string>;
  /** Publishes a fresh signing key (the old one stays in the JWKS) and signs new tokens with it. */
  rotateKeys(): Promise<string>;
  /** Withdraws a key that no longer signs from the JWKS, as an issuer revoking it would. */
  retireKey(kid: string): void;
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export async function startOidcProvider(options: StartOidcProviderOptions = {}): Promise<TestOidcProvider> {
  const audience = options.audience ?? 'https://relay.test/api';
  const scopes = options.scopes ?? ['relay:read', 'relay:admin', 'household:rows', 'household:metadata'];
  const algorithm = options.algorithm ?? 'RS256';
  const ttlSeconds = options.tokenTtlSeconds ?? 300;
  const clients = (options.clients ?? ['ambit-test-client']).map((id) => ({
    id,
    secret: randomBytes(24).toString('base64url'),
  }));
  const keys: JWK[] = [await newSigningKey(algorithm)];

  let handler: Handler = (_request, response) => {
    response.statusCode = 503;
    response.end();
  };
  const server = createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  // Claims and header for the token being minted; getToken calls are serialised so neither leaks between tokens.
  let pendingClaims: Readonly<Record<string, unknown>> = {};
  let pendingHeader: Readonly<Record<string, unknown>> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const install = () => {
    const signing = keys[0];
    if (!signing) throw new Error('no signing key');
    const provider = new Provider(issuer, {
      clients: clients.map(({ id, secret }) => ({
        client_id: id,
        client_secret: secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        // Client metadata is validated against the keystore, which holds keys of one algorithm only.
        id_token_signed_response_alg: algorithm,
      })),
      jwks: { keys },
      adapter: MapAdapter,
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => audience,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: scopes.join(' '),
            audience: resource,
            accessTokenTTL: ttlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: algorithm, kid: signing.kid } },
          }),
        },
      },
      ttl: { ClientCredentials: () => ttlSeconds },
      formats: {
        customizers: {
          jwt: (
            _ctx: unknown,
            _token: unknown,
            jwt: { header?: Record<string, unknown>; payload: Record<string, unknown> },
          ) => {
            Object.assign(jwt.payload, pendingClaims);
            if (pendingHeader !== undefined) jwt.header = { ...pendingHeader };
          },
        },
      },
    });
    handler = provider.callback();
  };
  install();

  const mint = async (requested: readonly string[] | string, opts: GetTokenOptions): Promise<string> => {
    const client = opts.clientId === undefined ? clients[0] : clients.find((c) => c.id === opts.clientId);
    if (!client) throw new Error(`unknown test client ${String(opts.clientId)}`);
    pendingClaims = opts.claims ?? {};
    pendingHeader = opts.header;
    try {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: typeof requested === 'string' ? requested : requested.join(' '),
          resource: opts.audience ?? audience,
        }),
      });
      const body = (await response.json()) as {
        access_token?: string;
        error?: string;
        error_description?: string;
      };
      if (!response.ok || typeof body.access_token !== 'string') {
        throw new Error(`token request failed: ${response.status} ${body.error} ${body.error_description}`);
      }
      return body.access_token;
    } finally {
      pendingClaims = {};
      pendingHeader = undefined;
    }
  };

  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    jwksUrl: `${issuer}/jwks`,
    tokenUrl: `${issuer}/token`,
    audience,
    clients,
    currentKid: () => String(keys[0]?.kid),
    getToken(requested, opts = {}) {
      const result = queue.then(() => mint(requested, opts));
      queue = result.catch(() => undefined);
      return result;
    },
    async rotateKeys() {
      keys.unshift(await newSigningKey(algorithm));
      install();
      return String(keys[0]?.kid);
    },
    retireKey(kid) {
      const index = keys.findIndex((key) => key.kid === kid);
      if (index < 1) throw new Error(`cannot retire ${kid}: unknown, or the key signing new tokens`);
      keys.splice(index, 1);
      install();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** Storage for the provider's artefacts; passing one also avoids the provider's in-memory adapter warning. */
class MapAdapter {
  private static readonly store = new Map<string, Record<string, unknown>>();
  private readonly model: string;

  constructor(model: string) {
    this.model = model;
  }

  private key(id: string): string {
    return `${this.model}:${id}`;
  }

  async upsert(id: string, payload: Record<string, unknown>): Promise<void> {
    MapAdapter.store.set(this.key(id), payload);
  }

  async find(id: string): Promise<Record<string, unknown> | undefined> {
    return MapAdapter.store.get(this.key(id));
  }

  async findByUid(): Promise<undefined> {
    return undefined;
  }

  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const payload = MapAdapter.store.get(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    MapAdapter.store.delete(this.key(id));
  }

  async revokeByGrantId(): Promise<void> {}
}

async function newSigningKey(algorithm: TestIdpAlgorithm): Promise<JWK> {
  const { privateKey } = await generateKeyPair(algorithm, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `test-${randomBytes(6).toString('hex')}`, alg: algorithm, use: 'sig' };
}

/**
 * The `auth:` block of a service config trusting `idp` (its issuer, audience and keys over loopback http), with
 * `extra` lines indented under `oidc:` (scope_map, algorithms...), then the `audit:` key that follows it: the text
 * replaces a config's own `auth:` block up to `audit:`.
 */
export function oidcAuthBlock(
  idp: TestOidcProvider,
  extra: readonly string[],
  keySource: 'jwks_url' | 'discovery_url' = 'jwks_url',
): string {
  return [
    'auth:',
    '  mode: oidc',
    '  oidc:',
    `    issuer: ${idp.issuer}`,
    `    audiences: ["${idp.audience}"]`,
    `    ${keySource}: ${keySource === 'jwks_url' ? idp.jwksUrl : idp.discoveryUrl}`,
    '    allow_dev_insecure_fetch_urls: true',
    ...extra.map((line) => `    ${line}`),
    '',
    'audit:',
  ].join('\n');
}

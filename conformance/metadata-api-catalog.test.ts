// RFC 9727 API catalog: an RFC 9264 JSON linkset (`application/linkset+json` with the RFC 9727 profile), public on
// GET and HEAD with `Link: rel="api-catalog"`, whose links are absolute and name the APIs on offer.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadManifestFile } from '../src/relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../src/relay/metadata/model/build-model-from-manifest.ts';
import { staticMetadataLinks } from '../src/relay/metadata/model/metadata-links.ts';
import { renderApiCatalog } from '../src/relay/metadata/renderers/render-api-catalog.ts';
import { DEMO_DIR, startDemoRelay, type TestRelay } from '../test/helpers/relay-harness.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * The JSON linkset document of RFC 9264 section 4.2: a `linkset` array of link context objects, each with an
 * `anchor` and one member per relation type holding an array of target objects; a target has an `href` and
 * optional target attributes (`type`, `title`, `hreflang` ...). Written from the RFC text for this test.
 */
const LINKSET_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['linkset'],
  additionalProperties: false,
  properties: {
    linkset: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['anchor'],
        properties: { anchor: { type: 'string', format: 'uri' } },
        additionalProperties: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['href'],
            properties: {
              href: { type: 'string', format: 'uri' },
              type: { type: 'string', pattern: '^[a-z]+/[^\\s]+$' },
              title: { type: 'string' },
              hreflang: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
  },
};

/** Relations RFC 9727 uses to point at an API and its description, documentation and metadata. */
const API_RELATIONS = ['item', 'service-desc', 'service-doc', 'service-meta'];

describe('RFC 9727 API catalog', () => {
  const validate = addFormats(new Ajv2020({ allErrors: true })).compile(LINKSET_SCHEMA);
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  function checkCatalog(body: unknown, catalogUrl: string): void {
    assert.equal(validate(body), true, JSON.stringify(validate.errors));
    const { linkset } = body as { linkset: Record<string, unknown>[] };
    const self = linkset.find((context) => context.anchor === catalogUrl);
    assert.ok(self, 'one link context is anchored at the catalog itself');
    const relations = linkset.flatMap((context) => Object.keys(context).filter((key) => key !== 'anchor'));
    assert.ok(
      relations.some((relation) => API_RELATIONS.includes(relation)),
      'the catalog links to at least one API',
    );
  }

  it('the relay serves it publicly with the linkset media type and the RFC 9727 profile', async () => {
    const response = await relay.get('/.well-known/api-catalog');
    assert.equal(response.statusCode, 200);
    const [mediaType, ...parameters] = String(response.headers['content-type'])
      .split(';')
      .map((s) => s.trim());
    assert.equal(mediaType, 'application/linkset+json');
    assert.deepEqual(parameters, ['profile="https://www.rfc-editor.org/info/rfc9727"']);
    checkCatalog(response.json(), 'http://127.0.0.1:4242/.well-known/api-catalog');
    const linkset = (response.json() as { linkset: Record<string, { href: string }[]>[] }).linkset;
    const api = linkset.find((context) => 'service-desc' in context);
    assert.equal(api?.['service-desc']?.[0]?.href, 'http://127.0.0.1:4242/openapi.json');
  });

  it('HEAD answers with the api-catalog Link and no body', async () => {
    const head = await relay.inject({ method: 'HEAD', url: '/.well-known/api-catalog' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.match(String(head.headers.link), /^<\/\.well-known\/api-catalog>; rel="api-catalog"$/);
  });

  it('the static publication carries a valid catalog too', () => {
    const model = buildModelFromManifest(loadManifestFile(join(DEMO_DIR, 'relay.metadata.yaml')).manifest);
    const links = staticMetadataLinks('https://static.example.org');
    checkCatalog(renderApiCatalog(model, links), 'https://static.example.org/.well-known/api-catalog');
  });

  it('the shape check rejects a catalog without anchors or with bare string links', () => {
    assert.equal(validate({ linkset: [{ item: [{ href: 'https://x.example' }] }] }), false);
    assert.equal(validate({ linkset: [{ anchor: 'https://x.example', item: 'https://y.example' }] }), false);
    assert.equal(validate({ links: [] }), false);
  });
});

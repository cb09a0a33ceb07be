// Accept on the /metadata routes: each document has one media type; an Accept that permits it (absent, `*/*`, its
// name, `application/json` for a +json type, any q above 0) gets the very bytes a client without Accept gets, one
// that permits none of them 406 http.not_acceptable naming it. The document is looked up first (404 wins), and
// Accept is weighed before If-None-Match.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { assertProblem } from '../helpers/http-checks.ts';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

const DOCUMENTS = [
  { path: '/metadata/dcat', type: 'application/ld+json' },
  { path: '/metadata/dcat/bregdcat-ap', type: 'application/ld+json' },
  { path: '/metadata/shacl', type: 'application/ld+json' },
  { path: '/metadata/datasets/civil_registry/policy', type: 'application/ld+json' },
  { path: '/metadata/cpsv-ap', type: 'application/ld+json' },
  { path: '/metadata/catalog', type: 'application/json' },
  { path: '/metadata/datasets/civil_registry/entities/persons/schema', type: 'application/schema+json' },
  { path: '/metadata/ogc/records', type: 'application/geo+json' },
] as const;

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The header names in Vary, lower-cased and sorted. */
const varyOf = (response: Response) =>
  String(response.headers.vary)
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .sort();

describe('Accept on the metadata routes', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());
  const get = (path: string, headers: Record<string, string> = {}) =>
    relay.get(path, { as: 'catalog_viewer', headers });

  it('sends the same bytes, media type and ETag to every Accept that permits the document', async () => {
    for (const { path, type } of DOCUMENTS) {
      const plain = await get(path);
      assert.equal(plain.statusCode, 200, `${path}: ${plain.body.slice(0, 200)}`);
      const contentType = String(plain.headers['content-type']).split(';')[0];
      assert.equal(contentType, type, path);
      const accepts = ['*/*', type, 'application/*', BROWSER, `text/turtle, ${type};q=0.5`];
      if (type !== 'application/json') accepts.push('application/json');
      for (const accept of accepts) {
        const response = await get(path, { accept });
        assert.equal(response.statusCode, 200, `${path} with ${accept}`);
        assert.equal(response.body, plain.body, `${path} with ${accept}`);
        assert.equal(response.headers['content-type'], plain.headers['content-type']);
        assert.equal(response.headers.etag, plain.headers.etag);
      }
    }
  });

  it('answers 406 http.not_acceptable naming the media type when Accept permits none', async () => {
    for (const { path, type } of DOCUMENTS) {
      const refusals = [
        'text/turtle',
        'text/html',
        'text/*',
        `${type};q=0`,
        `${type};q=0, */*`,
        `${type};q=abc`,
        // Another JSON type for JSON; plain JSON refused (over a wildcard) for a +json type.
        type === 'application/json' ? 'application/ld+json' : 'application/json;q=0, application/*',
      ];
      for (const accept of refusals) {
        const response = await get(path, { accept });
        const body = assertProblem(response, 406, `http.not_acceptable`);
        assert.match(String(body.detail), new RegExp(type.replace('+', '\\+')), `${path} with ${accept}`);
        assert.ok(varyOf(response).includes('accept'), `${path} with ${accept}`);
      }
    }
  });

  it('says the answer depends on Accept as well as the credential', async () => {
    const response = await get('/metadata/dcat');
    assert.deepEqual(varyOf(response), ['accept', 'authorization', 'x-api-key']);
  });

  it('refuses the credential and the unknown document first, whatever is accepted', async () => {
    const turtle = { accept: 'text/turtle' };
    assertProblem(await relay.get('/metadata/dcat', { headers: turtle }), 401, 'auth.missing_credential');
    assertProblem(await get('/metadata/dcat/nope', turtle), 404, 'schema.unknown_resource');
    assertProblem(await get('/metadata/evidence-offerings?nope=1', turtle), 400, 'filter.not_allowed');
  });

  it('weighs Accept before If-None-Match', async () => {
    const first = await get('/metadata/shacl');
    const etag = String(first.headers.etag);
    const revalidated = await get('/metadata/shacl', {
      'if-none-match': etag,
      accept: 'application/ld+json',
    });
    assert.equal(revalidated.statusCode, 304);
    assert.deepEqual(varyOf(revalidated), ['accept', 'authorization', 'x-api-key']);
    assertProblem(
      await get('/metadata/shacl', { 'if-none-match': etag, accept: 'text/turtle' }),
      406,
      'http.not_acceptable',
    );
  });

  it('declares the 406 in the OpenAPI document of every metadata operation', async () => {
    const document = (await get('/openapi.json')).json() as {
      paths: Record<string, { get?: { responses: Record<string, unknown> } }>;
    };
    const metadata = Object.entries(document.paths).filter(([path]) => path.startsWith('/metadata'));
    assert.ok(metadata.length > 10);
    for (const [path, item] of metadata) assert.ok(item.get?.responses['406'], path);
  });

  it('audits a refusal with its code', async () => {
    const response = await get('/metadata/policies', { accept: 'text/turtle' });
    assertProblem(response, 406, 'http.not_acceptable');
    const record = relay
      .auditRecords()
      .find((entry) => entry.request_id === response.headers['x-request-id']);
    assert.equal(record?.error_code, 'http.not_acceptable');
    assert.equal(record?.status_code, 406);
  });
});

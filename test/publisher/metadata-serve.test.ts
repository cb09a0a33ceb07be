// `ambit metadata serve`: published files with their media types, the index, caching, nothing outside.
import assert from 'node:assert/strict';
import fs, { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { publishMetadata } from '../../src/publisher/publish-metadata.ts';
import { createStaticMetadataApp } from '../../src/publisher/serve-static-metadata.ts';
import { assertProblem, assertSecurityHeaders } from '../helpers/http-checks.ts';
import { MANIFEST, useTempDir } from './publisher-fixture.ts';

describe('ambit metadata serve', () => {
  let app: ReturnType<typeof createStaticMetadataApp>;
  // Registered first, so the app closes before its folder is removed.
  after(() => app.close());
  const tmp = useTempDir('ambit-metadata-serve-');
  const site = join(tmp, 'site');
  before(async () => {
    publishMetadata(MANIFEST, site);
    writeFileSync(join(site, 'metadata', 'extra.jsonld'), '{"@context":{}}\n');
    writeFileSync(join(tmp, 'secret.txt'), 'outside the root');
    symlinkSync(join(tmp, 'secret.txt'), join(site, 'metadata', 'link.json'));
    writeFileSync(join(site, 'metadata', '.hidden.json'), '{}');
    app = createStaticMetadataApp(site, { logger: silentLogger(), clock: systemClock, random: systemRandom });
    await app.ready();
  });
  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers });

  it('serves each file unauthenticated with its media type and the security headers', async () => {
    const expected: [string, string][] = [
      ['/metadata/catalog.json', 'application/json'],
      ['/metadata/evidence-offerings.json', 'application/json'],
      ['/metadata/schema/civil_registry/persons/schema.json', 'application/schema+json'],
      ['/metadata/ogc/records.geojson', 'application/geo+json'],
      ['/metadata/extra.jsonld', 'application/ld+json'],
      ['/metadata/metadata.yaml', 'application/yaml'],
      [
        '/.well-known/api-catalog',
        'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
      ],
    ];
    for (const [url, type] of expected) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['content-type'], type, url);
      assertSecurityHeaders(response);
      assert.ok(response.rawPayload.equals(readFileSync(join(site, ...url.slice(1).split('/')))), url);
    }
  });

  it('serves the index for the root and for /metadata, and answers HEAD and If-None-Match', async () => {
    const index = readFileSync(join(site, 'metadata', 'index.json'), 'utf8');
    assert.equal((await get('/')).body, index);
    assert.equal((await get('/metadata')).body, index);
    assert.equal((await get('/metadata/')).body, index);
    const first = await get('/metadata/catalog.json');
    const revalidated = await get('/metadata/catalog.json', {
      'if-none-match': first.headers.etag as string,
    });
    assert.equal(revalidated.statusCode, 304);
    const head = await app.inject({ method: 'HEAD', url: '/metadata/catalog.json' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  it('never serves anything outside the publication, hidden files or other methods', async () => {
    for (const url of [
      '/metadata/../../secret.txt',
      '/metadata/%2e%2e/%2e%2e/secret.txt',
      '/metadata/..%2f..%2fsecret.txt',
      '/metadata/link.json',
      '/metadata/.hidden.json',
      '/.git/config',
      '/metadata/nope.json',
      '/metadata/datasets',
    ]) {
      assertProblem(await get(url), 404, 'http.not_found');
    }
    const posted = await app.inject({ method: 'POST', url: '/metadata/catalog.json', payload: '' });
    assertProblem(posted, 405, 'http.method_not_allowed');
    assert.equal(posted.headers.allow, 'GET, HEAD, OPTIONS');
  });
});

describe('ambit metadata serve while a publish replaces the folder', () => {
  const tmp = useTempDir('ambit-metadata-race-');
  const site = join(tmp, 'site');

  // Each fs call the server makes in turn, failing as a file moved away by a publish makes it fail.
  for (const [call, when] of [
    ['readFileSync', 'finding and reading it'],
    ['statSync', 'resolving and inspecting it'],
  ] as const) {
    it(`answers 404 for a file moved away between ${when}, not 500`, async (t) => {
      publishMetadata(MANIFEST, site);
      const app = createStaticMetadataApp(site, {
        logger: silentLogger(),
        clock: systemClock,
        random: systemRandom,
      });
      t.after(() => app.close());
      t.mock.method(fs, call, () => {
        throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
      });
      syncBuiltinESMExports();
      try {
        const response = await app.inject({ method: 'GET', url: '/metadata/catalog.json' });
        assertProblem(response, 404, 'http.not_found');
      } finally {
        t.mock.restoreAll();
        syncBuiltinESMExports();
      }
    });
  }
});

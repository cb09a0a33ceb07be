// Routes of the docs page through inject: HTML headers, asset content types and caching, 404 for anything else.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../clock.ts';
import { ConfigError } from '../config/config-error.ts';
import { silentLogger } from '../log.ts';
import { systemRandom } from '../random.ts';
import { createHttpServerApp } from './create-server.ts';
import { DOCS_ASSET_CACHE_CONTROL, registerDocsPage } from './docs-page.ts';
import { DOCS_CSP } from './security-headers.ts';

const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

function newApp(): FastifyInstance {
  return createHttpServerApp({
    logger: silentLogger(),
    clock: systemClock,
    random: systemRandom,
    requestTimeoutMs: 5_000,
    corsAllowedOrigins: [],
    trustProxy: false,
  });
}

describe('registerDocsPage', () => {
  const app = newApp();
  let html = '';

  before(async () => {
    registerDocsPage(app, { title: 'Relay <API> & "docs"', openapiPath: '/openapi.json' });
    await app.ready();
    html = (await app.inject({ method: 'GET', url: '/docs' })).body;
  });

  after(() => app.close());

  /** The local URLs the page loads, in document order. */
  function referencedUrls(): string[] {
    return [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
  }

  it('serves the page uncached under the docs CSP', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.headers['content-security-policy'], DOCS_CSP);
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.equal(response.headers['x-frame-options'], 'DENY');
  });

  it('escapes the title and carries the OpenAPI path for the loader', () => {
    assert.match(html, /<title>Relay &lt;API&gt; &amp; &quot;docs&quot;<\/title>/);
    assert.match(html, /<h1>Relay &lt;API&gt; &amp; &quot;docs&quot;<\/h1>/);
    assert.match(html, /data-openapi-path="\/openapi\.json"/);
    assert.doesNotMatch(html, /\{\{|\}\}/);
  });

  it('has no inline script and references only local, versioned URLs', () => {
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 2);
    for (const [tag, body] of scripts) {
      assert.match(tag, /\ssrc="\/docs\//);
      assert.equal(body, '');
    }
    const urls = referencedUrls();
    assert.deepEqual(urls.map((url) => url.replace(/\?v=[0-9a-f]{16}$/, '')).sort(), [
      '/docs/assets/docs.css',
      '/docs/assets/favicon-32x32.png',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
      '/docs/init.js',
    ]);
    assert.doesNotMatch(html, /https?:\/\//);
  });

  it('serves every referenced asset with its type, nosniff and a week-long immutable cache', async () => {
    const expectedTypes: Record<string, string> = {
      '/docs/assets/swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
      '/docs/init.js': 'text/javascript; charset=utf-8',
      '/docs/assets/swagger-ui.css': 'text/css; charset=utf-8',
      '/docs/assets/docs.css': 'text/css; charset=utf-8',
      '/docs/assets/favicon-32x32.png': 'image/png',
    };
    for (const url of referencedUrls()) {
      const response = await app.inject({ method: 'GET', url });
      const path = url.split('?')[0] ?? '';
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['content-type'], expectedTypes[path], url);
      assert.equal(response.headers['cache-control'], DOCS_ASSET_CACHE_CONTROL, url);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
      assert.ok(response.rawPayload.length > 0, url);
      assert.doesNotMatch(response.body, /sourceMappingURL/, url);
    }
  });

  it('serves the swagger-ui-dist files unchanged apart from the source-map comment', async () => {
    const bundle = await app.inject({ method: 'GET', url: '/docs/assets/swagger-ui-bundle.js' });
    assert.equal(bundle.body, readFileSync(join(SWAGGER_DIR, 'swagger-ui-bundle.js'), 'utf8'));
    const css = await app.inject({ method: 'GET', url: '/docs/assets/swagger-ui.css' });
    const original = readFileSync(join(SWAGGER_DIR, 'swagger-ui.css'), 'utf8');
    assert.ok(original.includes('sourceMappingURL'));
    assert.ok(original.startsWith(css.body));
    const favicon = await app.inject({ method: 'GET', url: '/docs/assets/favicon-32x32.png' });
    assert.deepEqual(favicon.rawPayload, readFileSync(join(SWAGGER_DIR, 'favicon-32x32.png')));
  });

  it('ships a loader that keeps the credential out of storage and off other origins', async () => {
    const init = (await app.inject({ method: 'GET', url: '/docs/init.js' })).body;
    assert.match(init, /validatorUrl: null/);
    assert.match(init, /Bearer \$\{credential\}/);
    assert.doesNotMatch(init, /localStorage|sessionStorage|document\.cookie|https?:\/\//);
  });

  it('answers HEAD for assets', async () => {
    const response = await app.inject({ method: 'HEAD', url: '/docs/assets/swagger-ui.css' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/css; charset=utf-8');
  });

  it('returns the app 404 problem for any other asset name', async () => {
    const names = [
      'swagger-ui-standalone-preset.js',
      'swagger-ui-bundle.js.map',
      'index.html',
      'swagger-initializer.js',
      'init.js',
      'docs.html',
      'constructor',
      '__proto__',
      '..%2Fpackage.json',
      '..%2F..%2F..%2Fpackage.json',
    ];
    for (const name of names) {
      const response = await app.inject({ method: 'GET', url: `/docs/assets/${name}` });
      assert.equal(response.statusCode, 404, name);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/, name);
      assert.equal(response.json().code, 'http.not_found', name);
    }
    for (const url of ['/docs/', '/docs/assets', '/docs/assets/', '/docs/assets/nested/swagger-ui.css']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.json().code, 'http.not_found', url);
    }
  });
});

describe('registerDocsPage options', () => {
  it('rejects an OpenAPI location that is not a same-origin path', () => {
    for (const openapiPath of [
      'https://elsewhere.example/openapi.json',
      '//elsewhere/openapi.json',
      'openapi.json',
      '',
    ]) {
      const app = newApp();
      assert.throws(
        () => registerDocsPage(app, { title: 'Docs', openapiPath }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.issues.some((issue) => issue.code === 'docs.openapi_path_invalid'),
        openapiPath,
      );
      void app.close();
    }
  });

  it('accepts a nested path and escapes it into the page', async () => {
    const app = newApp();
    registerDocsPage(app, { title: 'Docs', openapiPath: '/v1/openapi.json?view="full"' });
    const response = await app.inject({ method: 'GET', url: '/docs' });
    assert.match(response.body, /data-openapi-path="\/v1\/openapi\.json\?view=&quot;full&quot;"/);
    await app.close();
  });
});

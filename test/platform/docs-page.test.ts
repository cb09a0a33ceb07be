// Real-browser check of /docs: Swagger UI renders the OpenAPI document offline, behind a credential or public.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { DOCS_ASSET_CACHE_CONTROL, registerDocsPage } from '../../src/platform/http/docs-page.ts';
import { DOCS_CSP } from '../../src/platform/http/security-headers.ts';
import { platformProblem } from '../../src/platform/problem/platform-problems.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { bareApp } from '../helpers/http-checks.ts';

const KEY = 'test-key';
const UI_TIMEOUT_MS = 8_000;
const ICON_PATH = '/docs/assets/favicon-32x32.png';

// Markdown, a schema and a typed response make Swagger UI exercise its richer views under the page CSP.
const OPENAPI: unknown = JSON.parse(
  readFileSync(new URL('./fixtures/docs-openapi.json', import.meta.url), 'utf8'),
);

type OpenapiMode = 'protected' | 'public' | 'unavailable';

interface Server {
  app: FastifyInstance;
  origin: string;
  /** Authorization headers seen by `GET /things`, to check that "Try it out" reuses the credential. */
  thingsAuthorization: (string | undefined)[];
}

async function startServer(mode: OpenapiMode): Promise<Server> {
  const app = bareApp(10_000);
  registerDocsPage(app, { title: 'Docs <Test>', openapiPath: '/openapi.json' });
  const thingsAuthorization: (string | undefined)[] = [];
  app.get('/openapi.json', async (request) => {
    if (mode === 'unavailable') throw platformProblem('audit.write_failed');
    if (mode === 'protected') {
      const header = request.headers.authorization;
      if (header === undefined) throw platformProblem('auth.missing_credential');
      if (header !== `Bearer ${KEY}`) throw platformProblem('auth.invalid_credential');
    }
    return OPENAPI;
  });
  app.get('/things', async (request) => {
    thingsAuthorization.push(request.headers.authorization);
    return { items: [] };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, origin: `http://127.0.0.1:${port}`, thingsAuthorization };
}

interface Visit {
  context: BrowserContext;
  page: Page;
  requests: Request[];
  problems: string[];
}

async function openDocs(browser: Browser, origin: string): Promise<Visit> {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  context.setDefaultTimeout(UI_TIMEOUT_MS);
  const requests: Request[] = [];
  const problems: string[] = [];
  // Report every CSP violation (blocked inline style, script, connection...) as a console error.
  // Browser code is passed as text: the test project has no DOM typings.
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) => {
      console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline'));
    });`,
  });
  const page = await context.newPage();
  context.on('request', (request) => requests.push(request));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  const response = await page.goto(`${origin}/docs`);
  assert.equal(response?.status(), 200);
  assert.equal(response?.headers()['content-security-policy'], DOCS_CSP);
  assert.equal(response?.headers()['cache-control'], 'no-store');
  return { context, page, requests, problems };
}

async function renderedPaths(page: Page): Promise<string[]> {
  await page.locator('.opblock').first().waitFor();
  const paths = await page
    .locator('.opblock-summary-path')
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-path') ?? ''));
  return paths.sort();
}

function openapiRequests(visit: Visit): Request[] {
  return visit.requests.filter((request) => new URL(request.url()).pathname === '/openapi.json');
}

async function submitCredential(page: Page, value: string): Promise<void> {
  await page.getByLabel('API key or token').fill(value);
  await page.getByRole('button', { name: 'Load' }).click();
}

/** Every request went to our server, and nothing the browser reported looks like a CSP or script failure. */
async function finish(visit: Visit, origin: string): Promise<void> {
  const urls = visit.requests.map((request) => request.url());
  assert.ok(urls.length > 0);
  for (const url of urls) assert.equal(new URL(url).origin, origin, `unexpected request to ${url}`);
  assert.deepEqual(visit.problems.filter(isUnexpectedProblem), []);
  await visit.context.close();
}

// The browser logs each failed fetch of /openapi.json (401/503) as a console error: that is the behaviour under test.
function isUnexpectedProblem(text: string): boolean {
  return !/Failed to load resource: the server responded with a status of (401|503)/.test(text);
}

describe('docs page in a real browser', { timeout: 60_000 }, () => {
  let browser: Browser;
  const servers = new Map<OpenapiMode, Server>();

  before(async () => {
    const [launched] = await Promise.all([
      launchChromium(),
      ...(['protected', 'public', 'unavailable'] as const).map(async (mode) => {
        servers.set(mode, await startServer(mode));
      }),
    ]);
    browser = launched;
  });

  after(async () => {
    await browser?.close();
    await Promise.all([...servers.values()].map((server) => server.app.close()));
  });

  function server(mode: OpenapiMode): Server {
    const found = servers.get(mode);
    assert.ok(found, `server ${mode} was not started`);
    return found;
  }

  it('rejects a wrong key, then renders exactly the documented operations with the right one', async () => {
    const { origin, thingsAuthorization } = server('protected');
    const visit = await openDocs(browser, origin);
    const { page } = visit;
    assert.equal(await page.title(), 'Docs <Test>');
    const credentialField = page.getByLabel('API key or token');
    await credentialField.waitFor();
    assert.equal(await page.getByRole('alert').isVisible(), false);

    await submitCredential(page, 'wrong-key');
    const error = page.getByRole('alert');
    await error.waitFor();
    assert.equal(await error.textContent(), 'Invalid credential');
    assert.equal(await page.locator('#swagger-ui').innerHTML(), '');
    assert.equal(await credentialField.isVisible(), true, 'the form stays so another key can be tried');

    await submitCredential(page, KEY);
    assert.deepEqual(await renderedPaths(page), ['/stats', '/things', '/things/{id}']);
    assert.equal(await page.locator('.opblock').count(), 3);
    assert.equal(await error.isVisible(), false);
    assert.equal(await credentialField.isVisible(), false);
    assert.deepEqual(
      await Promise.all(openapiRequests(visit).map((request) => request.headerValue('authorization'))),
      [null, 'Bearer wrong-key', `Bearer ${KEY}`],
    );
    // The credential stays in page memory: not in the URL, the form field, web storage or cookies.
    assert.ok(!page.url().includes(KEY));
    assert.equal(await credentialField.inputValue(), '');
    const stored = await page.evaluate<string>(
      'JSON.stringify([{ ...localStorage }, { ...sessionStorage }])',
    );
    assert.ok(!stored.includes(KEY), stored);
    assert.deepEqual(await visit.context.cookies(), []);

    // "Try it out" reaches the server with the same credential (connect-src 'self' allows it).
    const listThings = page.locator('.opblock', { has: page.locator('[data-path="/things"]') });
    await listThings.locator('.opblock-summary').click();
    await listThings.getByRole('button', { name: 'Try it out' }).click();
    await listThings.getByRole('button', { name: 'Execute' }).click();
    await listThings.locator('.live-responses-table').waitFor();
    assert.deepEqual(thingsAuthorization, [`Bearer ${KEY}`]);
    // The schema view renders too: markdown description, data: icons, all within the CSP.
    const models = page.locator('section.models');
    await models.locator('.json-schema-2020-12-accordion', { hasText: 'Thing' }).click();
    await models.getByText('A thing with an id.').waitFor();
    await finish(visit, origin);
  });

  it('renders a public OpenAPI document without a credential, from cacheable nosniff assets', async () => {
    const { origin } = server('public');
    const visit = await openDocs(browser, origin);
    const { page } = visit;
    assert.deepEqual(await renderedPaths(page), ['/stats', '/things', '/things/{id}']);
    assert.equal(await page.locator('#docs-auth').isVisible(), false);
    const [openapi, ...others] = openapiRequests(visit);
    assert.deepEqual(others, []);
    assert.equal(await openapi?.headerValue('authorization'), null);

    // Whether the icon is fetched depends on the build (a headless shell never asks for one), so it is fetched
    // from the page's own link below instead of being expected among the page's requests.
    const assetRequests = visit.requests.filter((request) => {
      const path = new URL(request.url()).pathname;
      return /^\/docs\//.test(path) && path !== ICON_PATH;
    });
    assert.deepEqual(assetRequests.map((request) => new URL(request.url()).pathname).sort(), [
      '/docs/assets/docs.css',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
      '/docs/init.js',
    ]);
    const iconHref = await page.locator('link[rel="icon"]').getAttribute('href');
    const icon = await page.request.get(new URL(iconHref ?? '', page.url()).href);
    assert.equal(new URL(icon.url()).pathname, ICON_PATH);
    assert.equal(icon.headers()['content-type'], 'image/png');
    const assetHeaders = [
      ...(await Promise.all(
        assetRequests.map(async (request) => (await request.response())?.headers() ?? {}),
      )),
      icon.headers(),
    ];
    for (const [index, headers] of assetHeaders.entries()) {
      const url = assetRequests[index]?.url() ?? icon.url();
      assert.equal(headers['x-content-type-options'], 'nosniff', url);
      assert.equal(headers['cache-control'], DOCS_ASSET_CACHE_CONTROL, url);
    }
    await finish(visit, origin);
  });

  it('shows the problem title when the document cannot be served', async () => {
    const { origin } = server('unavailable');
    const visit = await openDocs(browser, origin);
    const { page } = visit;
    const error = page.getByRole('alert');
    await error.waitFor();
    assert.equal(await error.textContent(), 'Audit unavailable');
    assert.equal(await page.locator('#docs-auth').isVisible(), false);
    assert.equal(await page.locator('#swagger-ui').innerHTML(), '');
    await finish(visit, origin);
  });
});

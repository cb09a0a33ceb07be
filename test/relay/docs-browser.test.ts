// /docs on the relay in a real browser: pasting a key renders exactly the operations that key may see.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { loadDocs, openApiPaths } from '../helpers/docs-page.ts';
import { PURPOSE, startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';

describe('relay /docs in Chromium', { timeout: 60_000 }, () => {
  let relay: TestRelay;
  let browser: Browser;
  let origin: string;

  before(async () => {
    relay = await startDemoRelay();
    await relay.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(relay.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await relay.close();
  });

  it('renders the operations of the health planner and nothing from other datasets', async () => {
    const expectedPaths = await openApiPaths(origin, TEST_KEYS.health_planner);
    assert.ok(expectedPaths.includes('/v1/datasets/health_facilities/entities/facilities/records'));

    const {
      context,
      requests,
      renderedPaths: rendered,
    } = await loadDocs(browser, origin, TEST_KEYS.health_planner);
    assert.deepEqual([...new Set(rendered)].sort(), expectedPaths);
    assert.ok(
      !rendered.some((path) => path.includes('social_protection') || path.includes('civil_registry')),
    );
    for (const url of requests) assert.equal(new URL(url).origin, origin, `unexpected request to ${url}`);
    await context.close();
  });

  it('"Try it out" reads records with filters and Data-Purpose on the page\'s own origin, not catalog.base_url', async () => {
    // The document names catalog.base_url (http://127.0.0.1:4242); the page is served here from another origin, as
    // under another host name, a 0.0.0.0 bind or a proxy's address. Its CSP lets it call its own origin only.
    const { context, page } = await loadDocs(browser, origin, TEST_KEYS.caseworker);
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    const sent: Array<{ url: string; headers: Record<string, string> }> = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/v1/')) {
        sent.push({ url: request.url(), headers: request.headers() });
      }
    });

    const operation = page.locator('.opblock-get', {
      has: page.locator(`[data-path="${HOUSEHOLDS}"]`),
    });
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('tr[data-param-name="Data-Purpose"] input').fill(PURPOSE);
    await operation.locator('tr[data-param-name="district.eq"] input').fill('lakeside');
    await operation.locator('tr[data-param-name="limit"] input').fill('2');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 10_000 });

    assert.equal((await status.textContent())?.trim(), '200');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.url, `${origin}${HOUSEHOLDS}?limit=2&district.eq=lakeside`);
    assert.equal(sent[0]?.headers.authorization, `Bearer ${TEST_KEYS.caseworker}`);
    assert.equal(sent[0]?.headers['data-purpose'], PURPOSE);
    assert.match(
      await operation.locator('.live-responses-table tbody .response-col_description').first().innerText(),
      /"district": "lakeside"/,
    );
    assert.deepEqual(consoleErrors, []);
    // The curl command shown names the call but not the pasted key (docs/relay-api.md).
    const curl = await operation.locator('.curl-command').first().innerText();
    assert.match(curl, /district\.eq=lakeside/);
    assert.ok(!curl.includes(TEST_KEYS.caseworker), `the key is shown in ${curl}`);
    // The pasted key stays in the page's memory: nothing in web storage or cookies (docs/relay-api.md).
    const kept = await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]');
    assert.deepEqual(kept, [0, 0, '']);
    await context.close();
  });
});

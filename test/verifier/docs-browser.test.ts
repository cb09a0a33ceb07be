// /docs on the verifier in a real browser: pasting a key renders the verifier's operations, offers exactly the
// claims that key may evaluate, and "Try it out" calls the verifier with that key.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { loadDocs, openApiPaths, pasteKey } from '../helpers/docs-page.ts';
import {
  ALWAYS_TRUE_CLAIM_LINES,
  CALLER_KEYS,
  CCCEV,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';

describe('verifier /docs in Chromium', { timeout: 60_000 }, () => {
  let verifier: TestVerifier;
  let browser: Browser;
  let origin: string;

  before(async () => {
    // Without api_base_url the document names no server, so "Try it out" calls this origin.
    verifier = await startTestVerifier({
      edit: (text) => text.replace('  api_base_url: https://verifier.test\n', ''),
    });
    await verifier.verifier.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(verifier.verifier.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await verifier?.close();
  });

  it('renders the operations and offers only the claims of the pasted key', async () => {
    const expectedPaths = await openApiPaths(origin, CALLER_KEYS.civil_only);
    assert.ok(expectedPaths.includes('/v1/evaluations'));

    // The document needs a credential: the page asks for one instead of rendering an error.
    const {
      context,
      page,
      requests,
      renderedPaths: rendered,
    } = await loadDocs(browser, origin, CALLER_KEYS.civil_only);
    assert.deepEqual([...new Set(rendered)].sort(), expectedPaths);
    assert.ok(!rendered.some((path) => path.startsWith('/admin')));

    // The claim parameter lists the caller's claims: civil ones, never a claim needing social scopes.
    const operation = page.locator('.opblock-get', {
      has: page.locator('[data-path="/v1/claims/{claim_id}"]'),
    });
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const select = operation.locator('select').first();
    const offered = (await select.locator('option').allTextContents()).filter((text) => text !== '--');
    assert.ok(offered.includes('person_alive'), offered.join(', '));
    assert.ok(!offered.includes('eligible') && !offered.includes('household_enrolled'), offered.join(', '));

    // "Try it out" reuses the pasted key: the verifier answers the claim summary.
    await select.selectOption('person_alive');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 10_000 });
    assert.equal((await status.textContent())?.trim(), '200');
    for (const url of requests) assert.equal(new URL(url).origin, origin, `unexpected request to ${url}`);
    await context.close();
  });

  it('sends only the x-api-key the reader authorised, not the pasted key as well', async () => {
    // Both headers at once would be refused (400 auth.multiple_credentials).
    const { context, page } = await loadDocs(browser, origin, CALLER_KEYS.civil_only);
    const sent: Array<Record<string, string>> = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/v1/claims/')) sent.push(request.headers());
    });
    await page.locator('.auth-wrapper .authorize').click();
    const dialog = page.locator('.modal-ux');
    const apiKeyBlock = dialog.locator('.auth-container', { hasText: 'x-api-key' });
    await apiKeyBlock.locator('input').fill(CALLER_KEYS.full);
    await apiKeyBlock.getByRole('button', { name: 'Apply credentials' }).click();
    await dialog.locator('.close-modal').click();

    const operation = page.locator('.opblock-get', {
      has: page.locator('[data-path="/v1/claims/{claim_id}"]'),
    });
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('select').first().selectOption('person_alive');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 10_000 });
    assert.equal((await status.textContent())?.trim(), '200');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.['x-api-key'], CALLER_KEYS.full);
    assert.equal(sent[0]?.authorization, undefined);
    await context.close();
  });

  it('asks again for a credential when the pasted one is refused', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await pasteKey(page, origin, 'not-a-verifier-key-00000000000001');
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    assert.ok(await page.getByLabel('API key or token').isVisible());
    assert.equal(await page.locator('.opblock').count(), 0);
    await context.close();
  });

  it('"Try it out" evaluates on the page\'s own origin when evidence.api_base_url names another', async () => {
    // The document names https://verifier.test; the page's CSP lets it call its own origin only.
    const published = await startTestVerifier({
      edit: (text) => text.replace('  claims:\n', `  claims:\n${ALWAYS_TRUE_CLAIM_LINES.join('\n')}\n`),
    });
    try {
      await published.verifier.app.listen({ host: '127.0.0.1', port: 0 });
      const here = `http://127.0.0.1:${(published.verifier.app.server.address() as AddressInfo).port}`;
      const { context, page } = await loadDocs(browser, here, CALLER_KEYS.full);
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      const sent: Array<{ url: string; headers: Record<string, string>; body: string | null }> = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/v1/evaluations') {
          sent.push({ url: request.url(), headers: request.headers(), body: request.postData() });
        }
      });

      const operation = page.locator('.opblock-post', { has: page.locator('[data-path="/v1/evaluations"]') });
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      const body = JSON.stringify({
        target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] },
        claims: ['always'],
      });
      await operation.locator('tr[data-param-name="Data-Purpose"] input').fill(EVIDENCE_PURPOSE);
      await operation.locator('textarea.body-param__text').fill(body);
      await operation.locator('.response-control-media-type select').first().selectOption(CCCEV);
      await operation.getByRole('button', { name: 'Execute' }).click();
      const status = operation.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor({ timeout: 10_000 });

      assert.equal((await status.textContent())?.trim(), '200');
      assert.equal(sent.length, 1);
      assert.equal(sent[0]?.url, `${here}/v1/evaluations`);
      assert.equal(sent[0]?.headers.authorization, `Bearer ${CALLER_KEYS.full}`);
      assert.equal(sent[0]?.headers['data-purpose'], EVIDENCE_PURPOSE);
      assert.equal(sent[0]?.headers.accept, CCCEV);
      assert.equal(sent[0]?.body, body);
      const shown = await operation
        .locator('.live-responses-table tbody .response-col_description')
        .innerText();
      assert.match(shown, /cccev:Evidence/);
      assert.deepEqual(consoleErrors, []);
      await context.close();
    } finally {
      await published.close();
    }
  });
});

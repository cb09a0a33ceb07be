// /docs on the relay in a real browser: pasting a key renders exactly the operations that key may see.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { loadDocs, openApiPaths } from '../helpers/docs-page.ts';
import { startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

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
});

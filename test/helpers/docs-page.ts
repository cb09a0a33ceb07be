// /docs page steps shared by the relay and verifier browser tests: paste a key, load, read the rendered operations.
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** The sorted paths of the OpenAPI document the key may see. */
export async function openApiPaths(origin: string, key: string): Promise<string[]> {
  const response = await fetch(`${origin}/openapi.json`, { headers: { authorization: `Bearer ${key}` } });
  const document = (await response.json()) as { paths: Record<string, unknown> };
  return Object.keys(document.paths).sort();
}

/** Opens /docs, pastes the key and presses Load. */
export async function pasteKey(page: Page, origin: string, key: string): Promise<void> {
  await page.goto(`${origin}/docs`);
  await page.getByLabel('API key or token').fill(key);
  await page.getByRole('button', { name: 'Load' }).click();
}

export interface LoadedDocs {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every URL the page requested, for checking that it talks to its own origin only. */
  readonly requests: string[];
  /** The path of each rendered operation, in page order. */
  readonly renderedPaths: string[];
}

/** A fresh browser context with /docs loaded for the key, once its operations have rendered. */
export async function loadDocs(browser: Browser, origin: string, key: string): Promise<LoadedDocs> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await pasteKey(page, origin, key);
  await page.locator('.opblock').first().waitFor({ timeout: 10_000 });
  const renderedPaths = await page
    .locator('.opblock-summary-path')
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-path') ?? ''));
  return { context, page, requests, renderedPaths };
}

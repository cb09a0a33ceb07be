// The offline API documentation page: Swagger UI from swagger-ui-dist plus our loader script, no external requests.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ConfigError } from '../config/config-error.ts';
import { PACKAGE_ROOT } from '../package-root.ts';
import { DOCS_CSP } from './security-headers.ts';

export interface DocsPageOptions {
  /** Shown as the page title and heading. */
  title: string;
  /** Same-origin path of the OpenAPI document, e.g. `/openapi.json`. */
  openapiPath: string;
}

interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
  /** Content hash appended to the asset URL, so the long immutable cache is safe across upgrades. */
  readonly version: string;
}

const HTML_TYPE = 'text/html; charset=utf-8';
const JS_TYPE = 'text/javascript; charset=utf-8';
const CSS_TYPE = 'text/css; charset=utf-8';
const PNG_TYPE = 'image/png';
export const DOCS_ASSET_CACHE_CONTROL = 'public, max-age=604800, immutable';

// Only what the page loads: the standalone preset is left out (its top bar lets readers fetch arbitrary URLs).
const SWAGGER_FILES: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': JS_TYPE,
  'swagger-ui.css': CSS_TYPE,
  'favicon-32x32.png': PNG_TYPE,
};
const OWN_FILES: Readonly<Record<string, string>> = { 'docs.css': CSS_TYPE };

// Resolved from the package folder: the compiled build holds only the modules, not these files.
const OWN_DIR = join(PACKAGE_ROOT, 'src', 'platform', 'http', 'docs-assets');

export function registerDocsPage(app: FastifyInstance, options: DocsPageOptions): void {
  checkOpenapiPath(options.openapiPath);
  const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(SWAGGER_FILES))
    assets.set(name, readAsset(join(swaggerDir, name), type));
  for (const [name, type] of Object.entries(OWN_FILES))
    assets.set(name, readAsset(join(OWN_DIR, name), type));
  const init = readAsset(join(OWN_DIR, 'init.js'), JS_TYPE);
  const html = renderTemplate(readFileSync(join(OWN_DIR, 'docs.html'), 'utf8'), options, assets, init);

  app.get('/docs', async (_request, reply) =>
    reply
      .header('content-type', HTML_TYPE)
      .header('cache-control', 'no-store')
      .header('content-security-policy', DOCS_CSP)
      .send(html),
  );

  app.get('/docs/init.js', async (_request, reply) => sendAsset(reply, init));

  app.get<{ Params: { file: string } }>('/docs/assets/:file', async (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset) {
      reply.callNotFound();
      return reply;
    }
    return sendAsset(reply, asset);
  });
}

function sendAsset(reply: FastifyReply, asset: Asset): FastifyReply {
  return reply
    .header('content-type', asset.contentType)
    .header('cache-control', DOCS_ASSET_CACHE_CONTROL)
    .send(asset.body);
}

function readAsset(path: string, contentType: string): Asset {
  let body = readFileSync(path);
  // Source maps are not shipped, so drop the comments pointing at them (browsers would request the files).
  if (contentType !== PNG_TYPE) {
    body = Buffer.from(
      body
        .toString('utf8')
        .replace(/(?:\/\*# sourceMappingURL=[^*]*\*\/|\/\/# sourceMappingURL=\S*)\s*$/, ''),
    );
  }
  return { body, contentType, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

function renderTemplate(
  template: string,
  options: DocsPageOptions,
  assets: ReadonlyMap<string, Asset>,
  init: Asset,
): string {
  return template.replace(/\{\{([a-zA-Z]+)(?::([^}]+))?\}\}/g, (placeholder, key: string, file?: string) => {
    if (key === 'title') return escapeHtml(options.title);
    if (key === 'openapiPath') return escapeHtml(options.openapiPath);
    if (key === 'init') return `/docs/init.js?v=${init.version}`;
    const asset = file === undefined ? undefined : assets.get(file);
    if (key === 'asset' && asset) return `/docs/assets/${escapeHtml(file ?? '')}?v=${asset.version}`;
    throw new Error(`docs.html has an unknown placeholder ${placeholder}`);
  });
}

function checkOpenapiPath(path: string): void {
  // Same-origin absolute path only: the CSP allows no other origin and the credential must not leave the server.
  if (!/^\/(?!\/)[^\s\\]*$/.test(path)) {
    throw new ConfigError([
      {
        path: 'docs.openapi_path',
        code: 'docs.openapi_path_invalid',
        message: `must be a path such as /openapi.json, got ${JSON.stringify(path)}`,
      },
    ]);
  }
}

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

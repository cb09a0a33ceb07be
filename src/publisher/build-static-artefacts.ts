// The files of a static publication, rendered by the relay's own route table (one implementation for both),
// plus the API catalog, a copy of the manifest and an index listing every file with its digest.
import { createHash } from 'node:crypto';
import { STATIC_PATHS, staticMetadataLinks } from '../relay/metadata/model/metadata-links.ts';
import type { MetadataModel } from '../relay/metadata/model/metadata-model.ts';
import { renderApiCatalog } from '../relay/metadata/renderers/render-api-catalog.ts';
import { renderMetadataLanding } from '../relay/metadata/renderers/render-metadata-landing.ts';
import { isAvailable } from '../relay/metadata/routes/metadata-route.ts';
import {
  landingDocuments,
  METADATA_ROUTES,
  type MetadataRoute,
} from '../relay/metadata/routes/metadata-route-table.ts';
import { staticMediaType } from './static-media-types.ts';

export interface StaticArtefact {
  /** Relative to the publication root, `/`-separated. */
  readonly path: string;
  readonly mediaType: string;
  readonly body: Buffer;
}

export const PUBLICATION_SCHEMA_VERSION = 'ambit-metadata-publication/v1';
export const MANIFEST_COPY_PATH = 'metadata/metadata.yaml';

/** Pretty, with a final newline: published files are read by people too. Key order is the renderers'. */
function jsonFile(path: string, value: unknown): StaticArtefact {
  return { path, mediaType: staticMediaType(path), body: Buffer.from(`${JSON.stringify(value, null, 2)}\n`) };
}

export function buildStaticArtefacts(
  model: MetadataModel,
  options: { manifest?: Buffer; routes?: readonly MetadataRoute[] } = {},
): StaticArtefact[] {
  const routes = options.routes ?? METADATA_ROUTES;
  const links = staticMetadataLinks(model.catalog.baseUrl);
  const artefacts: StaticArtefact[] = [];
  for (const route of routes) {
    if (!route.publish || !isAvailable(route, model)) continue;
    for (const params of route.publish.instances(model)) {
      const body = route.render({ view: model, links, params, query: {}, documents: [] });
      artefacts.push(jsonFile(route.publish.file(params), body));
    }
  }
  artefacts.push(jsonFile(STATIC_PATHS.apiCatalog(), renderApiCatalog(model, links)));
  if (options.manifest !== undefined) {
    // The bytes as read, byte order mark included: the copy's sha256 is the digest a relay config pins.
    artefacts.push({
      path: MANIFEST_COPY_PATH,
      mediaType: staticMediaType(MANIFEST_COPY_PATH),
      body: options.manifest,
    });
  }
  const documents = landingDocuments(routes, model, 'static');
  const index = {
    schema_version: PUBLICATION_SCHEMA_VERSION,
    ...renderMetadataLanding(model, links, documents),
    files: artefacts.map((artefact) => ({
      path: artefact.path,
      media_type: artefact.mediaType,
      bytes: artefact.body.length,
      sha256: createHash('sha256').update(artefact.body).digest('hex'),
    })),
  };
  artefacts.push(jsonFile(STATIC_PATHS.landing(), index));
  return artefacts;
}

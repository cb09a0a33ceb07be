// The RFC 9727 API catalog: an RFC 9264 linkset naming the APIs and metadata of this deployment. It is public,
// so it names only fixed entry points, never a dataset.
import type { MetadataLinks } from '../model/metadata-links.ts';
import type { MetadataModel } from '../model/metadata-model.ts';
import { METADATA_MEDIA_TYPES } from './metadata-media-types.ts';

export interface LinkTarget {
  readonly href: string;
  readonly type?: string;
  readonly title?: string;
}

export interface LinkContext {
  readonly anchor: string;
  readonly [relation: string]: string | readonly LinkTarget[];
}

export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json;version=3.1';

export function renderApiCatalog(model: MetadataModel, links: MetadataLinks): { linkset: LinkContext[] } {
  const { baseUrl, title } = { baseUrl: model.catalog.baseUrl, title: model.catalog.title.text };
  const catalogLink: LinkTarget = { href: links.catalog(), type: METADATA_MEDIA_TYPES.json };
  if (links.style === 'static') {
    return {
      linkset: [
        {
          anchor: links.apiCatalog(),
          item: [
            { ...catalogLink, title: `${title}: metadata catalog` },
            {
              href: links.offerings(),
              type: METADATA_MEDIA_TYPES.json,
              title: `${title}: evidence offerings`,
            },
          ],
          describedby: [{ href: links.landing(), type: METADATA_MEDIA_TYPES.json }],
        },
      ],
    };
  }
  const dataApi = `${baseUrl}/v1/datasets`;
  return {
    linkset: [
      {
        anchor: links.apiCatalog(),
        item: [
          { href: dataApi, type: METADATA_MEDIA_TYPES.json, title: `${title}: registry data API (v1)` },
          { href: links.landing(), type: METADATA_MEDIA_TYPES.json, title: `${title}: metadata` },
        ],
        describedby: [catalogLink],
      },
      {
        anchor: dataApi,
        'service-desc': [{ href: `${baseUrl}/openapi.json`, type: OPENAPI_MEDIA_TYPE }],
        'service-doc': [{ href: `${baseUrl}/docs`, type: 'text/html' }],
        'service-meta': [catalogLink],
        status: [{ href: `${baseUrl}/healthz`, type: METADATA_MEDIA_TYPES.json }],
      },
    ],
  };
}

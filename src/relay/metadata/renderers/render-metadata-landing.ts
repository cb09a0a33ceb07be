// The `/metadata` landing document: the catalog in brief and a link to every metadata document on offer.
import { textOrNull } from '../model/localized-text.ts';
import type { MetadataLinks } from '../model/metadata-links.ts';
import type { MetadataModel } from '../model/metadata-model.ts';
import { METADATA_MEDIA_TYPES } from './metadata-media-types.ts';

export interface LandingLink {
  readonly rel: string;
  readonly href: string;
  readonly type: string;
  readonly title: string;
}

/** `documents` are the catalog-wide documents of the surface (the relay route table, or the published files). */
export function renderMetadataLanding(
  model: MetadataModel,
  links: MetadataLinks,
  documents: readonly LandingLink[],
) {
  return {
    catalog: {
      id: model.catalog.id,
      title: model.catalog.title.text,
      description: textOrNull(model.catalog.description),
      source: model.source,
      datasets: model.datasets.map((dataset) => dataset.id),
    },
    links: [
      { rel: 'self', href: links.landing(), type: METADATA_MEDIA_TYPES.json, title: 'This document' },
      {
        rel: 'api-catalog',
        href: links.apiCatalog(),
        type: METADATA_MEDIA_TYPES.linkset,
        title: 'API catalog (RFC 9727)',
      },
      ...documents,
    ],
  };
}

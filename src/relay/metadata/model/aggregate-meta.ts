// The relay's declared aggregates as the metadata model describes them (DCAT distributions of their dataset).
import type { CatalogDataset } from '../../catalog/catalog.ts';
import { plainText } from './localized-text.ts';
import type { AggregateMeta } from './metadata-model.ts';

export function aggregatesOf(dataset: CatalogDataset | undefined, baseUrl: string): AggregateMeta[] {
  if (dataset === undefined) return [];
  return [...dataset.aggregates.values()].map((aggregate) => ({
    id: aggregate.id,
    title: plainText(aggregate.title),
    description: aggregate.description === '' ? undefined : plainText(aggregate.description),
    url: `${baseUrl}/v1/datasets/${aggregate.datasetId}/aggregates/${aggregate.id}`,
  }));
}

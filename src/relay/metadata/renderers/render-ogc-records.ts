// OGC API Records bodies (record-core, GeoJSON encoding), one record per dataset. Link-free: the bodies carry
// no `links`, so the same bytes serve the relay, a static host, or a Records API that adds its own links.
import type { DatasetMeta, MetadataModel } from '../model/metadata-model.ts';

export const OGC_RECORD_CORE = 'http://www.opengis.net/spec/ogcapi-records-1/1.0/conf/record-core';

/** Records `time` accepts only dates and UTC timestamps. */
const RECORD_DATE = /^\d{4}-\d{2}-\d{2}$/;
const RECORD_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

export function renderOgcRecordCollection(model: MetadataModel) {
  const features = model.datasets.map((dataset) => renderOgcRecord(model, dataset));
  return { type: 'FeatureCollection', numberReturned: features.length, features };
}

export function renderOgcRecord(model: MetadataModel, dataset: DatasetMeta) {
  const publisher = dataset.publisher ?? model.catalog.publisher;
  const keywords = [...new Set([...dataset.keywords, ...dataset.entities.map((entity) => entity.name)])];
  const created = asTimestamp(dataset.issued);
  const updated = asTimestamp(dataset.modified);
  const time = recordTime(dataset);
  return {
    id: dataset.id,
    type: 'Feature',
    conformsTo: [OGC_RECORD_CORE],
    // Omitted when unknown: a null `time` matches both branches of the schema's oneOf where `nullable` is honoured.
    ...(time === undefined ? {} : { time }),
    geometry: null,
    properties: {
      type: 'dataset',
      title: dataset.title.text,
      ...(dataset.description === undefined ? {} : { description: dataset.description.text }),
      ...(created === undefined ? {} : { created }),
      ...(updated === undefined ? {} : { updated }),
      ...(keywords.length === 0 ? {} : { keywords }),
      ...(dataset.themes.length === 0
        ? {}
        : {
            themes: [
              { scheme: 'http://www.w3.org/ns/dcat#theme', concepts: dataset.themes.map((id) => ({ id })) },
            ],
          }),
      ...(model.catalog.languages.length === 0
        ? {}
        : { languages: model.catalog.languages.map((code) => ({ code })) }),
      externalIds: [{ scheme: 'iri', value: dataset.iri }],
      formats: [{ name: 'JSON', mediaType: 'application/json' }],
      contacts: [
        {
          organization: dataset.owner ?? publisher.name,
          roles: ['publisher'],
        },
      ],
      ...(dataset.license === undefined ? {} : { license: dataset.license }),
      rights: dataset.accessRights,
    },
  };
}

function asTimestamp(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return RECORD_DATE.test(value) ? `${value}T00:00:00Z` : RECORD_TIMESTAMP.test(value) ? value : undefined;
}

function recordTime(dataset: DatasetMeta): { date: string } | { timestamp: string } | undefined {
  const value = dataset.modified ?? dataset.issued;
  if (value === undefined) return undefined;
  if (RECORD_DATE.test(value)) return { date: value };
  return RECORD_TIMESTAMP.test(value) ? { timestamp: value } : undefined;
}

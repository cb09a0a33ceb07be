// OGC API Records bodies (record-core, GeoJSON encoding), one record per dataset. Link-free: the bodies carry
// no `links`, so the same bytes serve the relay, a static host, or a Records API that adds its own links.
import type { DatasetMeta, MetadataModel } from '../model/metadata-model.ts';

export const OGC_RECORD_CORE = 'http://www.opengis.net/spec/ogcapi-records-1/1.0/conf/record-core';

/** Records `time` accepts only dates and UTC timestamps; a manifest timestamp with an offset is moved to UTC. */
const RECORD_DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

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

/** `created` and `updated` are RFC 3339 date-times: a timestamp as given, a date at its UTC midnight. */
function asTimestamp(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return RECORD_DATE.test(value) ? `${value}T00:00:00Z` : TIMESTAMP.test(value) ? value : undefined;
}

function recordTime(dataset: DatasetMeta): { date: string } | { timestamp: string } | undefined {
  const value = dataset.modified ?? dataset.issued;
  if (value === undefined) return undefined;
  if (RECORD_DATE.test(value)) return { date: value };
  const utc = inUtc(value);
  return utc === undefined ? undefined : { timestamp: utc };
}

/** The same instant with a `Z`, its fraction digits kept as written. */
function inUtc(value: string): string | undefined {
  const match = TIMESTAMP.exec(value);
  if (!match) return undefined;
  const [, seconds, fraction = '', offset] = match;
  if (offset === 'Z') return value;
  const ms = Date.parse(`${seconds}${offset}`);
  return Number.isNaN(ms) ? undefined : `${new Date(ms).toISOString().slice(0, 19)}${fraction}Z`;
}

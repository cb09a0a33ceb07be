// Media types of published files, by name: what `ambit metadata serve` sends and the index records.
import { METADATA_MEDIA_TYPES } from '../relay/metadata/renderers/metadata-media-types.ts';

const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.json': METADATA_MEDIA_TYPES.json,
  '.jsonld': METADATA_MEDIA_TYPES.jsonLd,
  '.geojson': METADATA_MEDIA_TYPES.geoJson,
  '.yaml': METADATA_MEDIA_TYPES.yaml,
  '.yml': METADATA_MEDIA_TYPES.yaml,
  '.ttl': 'text/turtle',
};

/** Where the publication puts entity and form JSON Schemas. Only there: ids may be `schema` too, and dataset
 * `schema`'s descriptor (`metadata/datasets/schema.json`) is no JSON Schema. */
const JSON_SCHEMA_PATH = /^metadata\/(?:schema\/[^/]+\/[^/]+|forms\/[^/]+)\/schema\.json$/;

/** `path` is relative to the publication root, with `/` separators. */
export function staticMediaType(path: string): string {
  if (path === '.well-known/api-catalog') return METADATA_MEDIA_TYPES.linkset;
  if (JSON_SCHEMA_PATH.test(path)) return METADATA_MEDIA_TYPES.jsonSchema;
  const dot = path.lastIndexOf('.');
  const slash = path.lastIndexOf('/');
  const extension = dot > slash ? path.slice(dot) : '';
  return BY_EXTENSION[extension] ?? 'application/octet-stream';
}

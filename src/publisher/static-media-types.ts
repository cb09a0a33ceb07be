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

/** `path` is relative to the publication root, with `/` separators. */
export function staticMediaType(path: string): string {
  if (path === '.well-known/api-catalog') return METADATA_MEDIA_TYPES.linkset;
  if (path.endsWith('/schema.json')) return METADATA_MEDIA_TYPES.jsonSchema;
  const dot = path.lastIndexOf('.');
  const slash = path.lastIndexOf('/');
  const extension = dot > slash ? path.slice(dot) : '';
  return BY_EXTENSION[extension] ?? 'application/octet-stream';
}

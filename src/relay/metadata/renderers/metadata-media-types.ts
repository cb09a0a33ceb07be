// Media types of the metadata documents, shared by the relay routes and the static publisher.
export const METADATA_MEDIA_TYPES = {
  json: 'application/json',
  jsonSchema: 'application/schema+json',
  geoJson: 'application/geo+json',
  jsonLd: 'application/ld+json',
  linkset: 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
  yaml: 'application/yaml',
} as const;

/** JSON Schema dialect of every schema we publish. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

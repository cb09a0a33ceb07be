// Keys the reference relay accepted that this one refuses, each with what to write instead (`config.parse_error`).
import type { LegacyKey } from '../../platform/config/validate-config.ts';

/** Keys the reference accepted that we reject, each with how to move on; `at: ''` is the root. */
export const LEGACY_KEYS = [
  { at: 'auth.oidc', key: 'audience', message: '`audience` was renamed: use `audiences` (a list)' },
  { at: 'auth.oidc', key: 'algorithms', message: '`algorithms` was renamed: use `allowed_algorithms`' },
  { at: 'auth.oidc', key: 'token_types', message: '`token_types` was renamed: use `allowed_token_types`' },
  {
    at: 'datasets.*.entities.*',
    key: 'aggregates',
    message:
      'entity-level aggregates are not served: move each to `datasets[].aggregates` with `source_entity` set to this entity; `group_by` becomes `dimensions` (and `default_group_by`), `measures[]` become `indicators[]` (`name` -> `id`), and a `joins[].relationship` is followed by a dimension `field: relationship.field`',
  },
  {
    at: 'datasets.*.tables.*',
    key: 'aggregates',
    message:
      'table-level aggregates are not served: declare them under `datasets[].aggregates` with `source_entity` set to an entity over this table',
  },
  {
    at: 'datasets.*.entities.*',
    key: 'row_scope',
    message: '`row_scope` is not supported: there is no row-level authorisation',
  },
  { at: 'datasets.*.tables.*', key: 'access', message: 'table-level `access` moved to `entities[].access`' },
  { at: 'datasets.*.tables.*', key: 'api', message: 'table-level `api` moved to `entities[].api`' },
  // Reference surfaces this relay does not have. Refused rather than ignored: a governed policy or an OIDC role filter
  // dropped in silence would widen what a caller reads.
  {
    at: '',
    key: 'provenance',
    message:
      'signed responses (`provenance`, VC-JWT) are not served by this relay: remove the block; responses are plain JSON',
  },
  {
    at: '',
    key: 'standards',
    message: 'SP-DCI sync routes (`standards.spdci`) are not served by this relay: remove the block',
  },
  {
    at: '',
    key: 'compliance',
    message:
      '`compliance` is not supported: remove it, and name the law a dataset is held under in its `applicable_legislation`',
  },
  {
    at: '',
    key: 'deployment',
    message:
      'deployment profiles and their waivers are not supported: remove `deployment`; every deployment is checked by the same rules',
  },
  {
    at: '',
    key: 'config_trust',
    message:
      'governed configuration apply (`config_trust`) is not supported: remove it; a configuration change takes a restart (or an admin reload of the data)',
  },
  {
    at: 'metadata',
    key: 'ecosystem_binding',
    message:
      '`ecosystem_binding` is not supported: remove it; the manifest at `metadata.source.path` is served as it is',
  },
  {
    at: 'auth.oidc',
    key: 'scope_object_required_keys',
    message:
      '`scope_object_required_keys` is not supported: an object-valued scope claim grants each of its keys whose value is a mapping, whatever organisation it names. Issue the scopes in a string or list claim (`scope_claim`), renamed with `scope_map` where needed, then remove this key',
  },
  {
    at: 'auth.api_keys.*',
    key: 'hash_env',
    message: '`hash_env` moved to `fingerprint: {provider: env, name}` (the same variable, as `name`)',
  },
  {
    at: 'metadata',
    key: 'manifest_path',
    message: '`manifest_path` moved to `source: {path}` (relative to the config file, as before)',
  },
  {
    at: 'datasets.*',
    key: 'evidence_offerings',
    message:
      'evidence offerings are described in the metadata manifest: move them to its `datasets[].evidence_offerings` (the file at `metadata.source.path`)',
  },
  {
    at: 'auth.api_keys.*.fingerprint',
    key: 'path',
    message:
      'fingerprints are read from the environment only: put it in a variable and name that with `provider: env` and `name`',
  },
  {
    at: 'datasets.*',
    key: 'public_services',
    message:
      'public services are described in the metadata manifest: move them to its `datasets[].public_services` (the file at `metadata.source.path`)',
  },
  {
    at: 'datasets.*.entities.*.api',
    key: 'governed_policy',
    message:
      '`governed_policy` is not supported: permitted purposes, trusted context and redaction are not enforced here (a `Data-Purpose` value is only written to the audit). Leave the redacted fields out of the entity `fields`, or serve them through another entity with its own `access.read_scope`, then remove the block',
  },
  {
    at: 'datasets.*.entities.*',
    key: 'spatial',
    message:
      'entity `spatial` describes an OGC API Features collection, which this relay does not serve: remove it; the records stay readable through the records routes',
  },
  {
    at: 'datasets.*.entities.*',
    key: 'publicschema',
    message: '`publicschema` (credential mapping) is not supported: remove it',
  },
  {
    at: 'datasets.*.entities.*',
    key: 'attribute_release_profiles',
    message:
      'attribute release (`/v1/attribute-releases`) is not served by this relay: remove `attribute_release_profiles`',
  },
  {
    at: 'datasets.*.aggregates.*',
    key: 'spatial',
    message:
      'aggregate `spatial` describes an OGC API EDR area query, which this relay does not serve: remove it; the aggregate stays queryable through the aggregate routes',
  },
] as const satisfies readonly LegacyKey[];

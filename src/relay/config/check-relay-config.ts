// Cross-field rules of the relay config, each a small named check; all issues are collected.
import { bindsMayClash } from '../../platform/config/bind-address.ts';
import { checkAuditBlock } from '../../platform/config/check-audit-block.ts';
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { hint } from '../../platform/config/did-you-mean.ts';
import { checkOidcBlock } from '../../platform/config/oidc-config-schema.ts';
import { checkTrustProxyBlock } from '../../platform/config/trust-proxy-schema.ts';
import { checkAggregateConfig } from '../aggregates/check-aggregate-config.ts';
import { unknownPrefix } from '../catalog/expand-iri.ts';
import { fileFormatOf, unknownFormatDetail } from '../sources/file-format.ts';
import { checkGrantedScopes } from './check-granted-scopes.ts';
import { checkPostgresSources } from './check-postgres-sources.ts';
import { checkPublicFieldNames } from './check-public-field-names.ts';
import type { DatasetConfig, EntityConfig, RelayConfig } from './schema.ts';

const RESERVED_ENTITY_NAMES = new Set(['catalog', 'admin', 'health', 'ready', 'openapi.json']);
const RESERVED_RELATIONSHIP_NAMES = new Set(['aggregates', 'schema', 'verify', 'exports']);

type Check = (config: RelayConfig) => ConfigIssue[];

export const RELAY_CONFIG_CHECKS: readonly Check[] = [
  checkAuthMode,
  checkUniqueIds,
  checkReservedDatasetIds,
  checkGrantedScopes,
  checkIriPrefixes,
  checkTables,
  checkEntities,
  (config) => checkTrustProxyBlock(config.server.trust_proxy),
  checkAdminBind,
  (config) => checkAuditBlock(config.audit),
  // Dataset aggregates: paths, functions, filters, scopes and disclosure rules.
  checkAggregateConfig,
  // PostgreSQL sources: table xor query, read-only SQL, live materialization limits.
  checkPostgresSources,
];

export function checkRelayConfig(config: RelayConfig): ConfigIssue[] {
  return RELAY_CONFIG_CHECKS.flatMap((check) => check(config));
}

const issue = (path: string, message: string, code = 'config.validation_error'): ConfigIssue => ({
  path,
  code,
  message,
});

function checkAuthMode(config: RelayConfig): ConfigIssue[] {
  const { auth } = config;
  const issues: ConfigIssue[] = [];
  if (auth.mode === 'api_key') {
    if (auth.oidc)
      issues.push(issue('auth.oidc', 'must be absent when auth.mode is api_key (one mode per deployment)'));
    if (!auth.api_keys) issues.push(issue('auth.api_keys', 'is required when auth.mode is api_key'));
  } else {
    if (auth.api_keys)
      issues.push(issue('auth.api_keys', 'must be absent when auth.mode is oidc (one mode per deployment)'));
    if (!auth.oidc) return [...issues, issue('auth.oidc', 'is required when auth.mode is oidc')];
    issues.push(...checkOidcBlock(auth.oidc));
  }
  return issues;
}

function checkUniqueIds(config: RelayConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const duplicates = (items: readonly { id?: string; name?: string }[], path: string, what: string) => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      const key = item.id ?? item.name ?? '';
      if (seen.has(key))
        issues.push(issue(`${path}.${index}`, `duplicate ${what} \`${key}\``, 'config.duplicate_id'));
      seen.add(key);
    });
  };
  duplicates(config.datasets, 'datasets', 'dataset id');
  duplicates(config.auth.api_keys ?? [], 'auth.api_keys', 'api key id');
  config.datasets.forEach((dataset, d) => {
    duplicates(dataset.tables, `datasets.${d}.tables`, 'table id');
    duplicates(dataset.entities, `datasets.${d}.entities`, 'entity name');
    dataset.tables.forEach((table, t) => {
      duplicates(table.schema.fields, `datasets.${d}.tables.${t}.schema.fields`, 'field name');
    });
    dataset.entities.forEach((entity, e) => {
      duplicates(entity.fields ?? [], `datasets.${d}.entities.${e}.fields`, 'field name');
      // Listed twice, a filter's operators would be the last entry's alone.
      const filters = entity.api.allowed_filters.map((filter) => ({ name: filter.field }));
      duplicates(filters, `datasets.${d}.entities.${e}.api.allowed_filters`, 'allowed filter field');
      duplicates(entity.relationships, `datasets.${d}.entities.${e}.relationships`, 'relationship name');
    });
  });
  return issues;
}

/**
 * `relay:` scopes are the admin listener's: a dataset of that id could be granted to no key, and holding an admin
 * scope would count as holding a scope on it, so admins would learn which of its entities exist.
 */
function checkReservedDatasetIds(config: RelayConfig): ConfigIssue[] {
  return config.datasets.flatMap((dataset, d) =>
    dataset.id === 'relay'
      ? [issue(`datasets.${d}.id`, '`relay` is reserved: `relay:` scopes belong to the admin listener')]
      : [],
  );
}

function checkIriPrefixes(config: RelayConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const check = (path: string, value: string | undefined) => {
    if (value === undefined) return;
    const prefix = unknownPrefix(value, config.vocabularies);
    if (prefix === '(none)') {
      issues.push(
        issue(
          path,
          `\`${value}\` is not an IRI (use https://... or a vocabularies prefix such as prefix:term)`,
        ),
      );
    } else if (prefix !== undefined) {
      issues.push(
        issue(
          path,
          `\`${value}\` uses unknown vocabulary prefix \`${prefix}\`${hint(prefix, Object.keys(config.vocabularies))}`,
        ),
      );
    }
  };
  check('catalog.publisher_iri', config.catalog.publisher_iri);
  check('catalog.authority_type', config.catalog.authority_type);
  check('catalog.default_spatial_coverage', config.catalog.default_spatial_coverage);
  config.datasets.forEach((dataset, d) => {
    check(`datasets.${d}.spatial_coverage`, dataset.spatial_coverage);
    for (const [i, value] of dataset.conforms_to.entries()) check(`datasets.${d}.conforms_to.${i}`, value);
    dataset.tables.forEach((table, t) => {
      table.schema.fields.forEach((field, f) => {
        check(`datasets.${d}.tables.${t}.schema.fields.${f}.concept_uri`, field.concept_uri);
      });
    });
    dataset.entities.forEach((entity, e) => {
      const base = `datasets.${d}.entities.${e}`;
      check(`${base}.concept_uri`, entity.concept_uri);
      for (const [f, field] of (entity.fields ?? []).entries())
        check(`${base}.fields.${f}.concept_uri`, field.concept_uri);
      for (const [r, rel] of entity.relationships.entries()) {
        check(`${base}.relationships.${r}.concept_uri`, rel.concept_uri);
      }
    });
  });
  return issues;
}

function checkTables(config: RelayConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  config.datasets.forEach((dataset, d) => {
    dataset.tables.forEach((table, t) => {
      // The loader's own rule: without it the check passes a source that `relay serve` then refuses to load.
      if (table.source.type === 'file' && fileFormatOf(table.source) === undefined) {
        issues.push(issue(`datasets.${d}.tables.${t}.source.path`, unknownFormatDetail(table.source.path)));
      }
      const names = table.schema.fields.map((field) => field.name);
      if (!names.includes(table.primary_key)) {
        issues.push(
          issue(
            `datasets.${d}.tables.${t}.primary_key`,
            `\`${table.primary_key}\` is not a declared field${hint(table.primary_key, names)}`,
          ),
        );
      }
    });
  });
  return issues;
}

function checkEntities(config: RelayConfig): ConfigIssue[] {
  return config.datasets.flatMap((dataset, d) =>
    dataset.entities.flatMap((entity, e) => checkEntity(dataset, entity, `datasets.${d}.entities.${e}`)),
  );
}

function publicFields(
  dataset: DatasetConfig,
  entity: EntityConfig,
): Map<string, { column: string; type?: string }> {
  const table = dataset.tables.find((candidate) => candidate.id === entity.table);
  const types = new Map(table?.schema.fields.map((field) => [field.name, field.type]));
  const fields =
    entity.fields ?? table?.schema.fields.map((field) => ({ name: field.name, from: undefined })) ?? [];
  return new Map(
    fields.map((field) => {
      const column = field.from ?? field.name;
      return [field.name, { column, type: types.get(column) }];
    }),
  );
}

function checkEntity(dataset: DatasetConfig, entity: EntityConfig, base: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const table = dataset.tables.find((candidate) => candidate.id === entity.table);
  if (RESERVED_ENTITY_NAMES.has(entity.name))
    issues.push(issue(`${base}.name`, `\`${entity.name}\` is reserved`));
  if (!table) {
    return [
      ...issues,
      issue(
        `${base}.table`,
        `unknown table \`${entity.table}\`${hint(
          entity.table,
          dataset.tables.map((t) => t.id),
        )}`,
      ),
    ];
  }
  const columns = table.schema.fields.map((field) => field.name);
  entity.fields?.forEach((field, f) => {
    const column = field.from ?? field.name;
    if (!columns.includes(column)) {
      issues.push(
        issue(
          `${base}.fields.${f}`,
          `table \`${table.id}\` has no column \`${column}\`${hint(column, columns)}`,
        ),
      );
    }
  });
  issues.push(...checkPublicFieldNames(entity, table, base));
  const fields = publicFields(dataset, entity);
  const pkExposed = [...fields.values()].filter((field) => field.column === table.primary_key).length;
  // An undeclared primary key is reported once, on the table, not again on every entity over it.
  if (pkExposed !== 1 && columns.includes(table.primary_key)) {
    issues.push(
      issue(`${base}.fields`, `exactly one field must expose the table primary key \`${table.primary_key}\``),
    );
  }
  for (const [key, scope] of Object.entries(entity.access)) {
    if (scope !== undefined && !scope.startsWith(`${dataset.id}:`)) {
      issues.push(issue(`${base}.access.${key}`, `scope \`${scope}\` must start with \`${dataset.id}:\``));
    }
  }
  const api = entity.api;
  if (api.default_limit > api.max_limit)
    issues.push(issue(`${base}.api.default_limit`, 'must not exceed max_limit'));
  const allowed = new Map(api.allowed_filters.map((filter) => [filter.field, filter.ops]));
  api.allowed_filters.forEach((filter, i) => {
    if (!fields.has(filter.field)) {
      issues.push(
        issue(
          `${base}.api.allowed_filters.${i}.field`,
          `unknown field \`${filter.field}\`${hint(filter.field, fields.keys())}`,
        ),
      );
    }
  });
  api.required_filters.forEach((name, i) => {
    if (!allowed.get(name)?.includes('eq')) {
      issues.push(
        issue(
          `${base}.api.required_filters.${i}`,
          `\`${name}\` must be an allowed filter with the eq operator`,
        ),
      );
    }
  });
  const relNames = new Set(entity.relationships.map((rel) => rel.name));
  api.allowed_expansions.forEach((name, i) => {
    if (!relNames.has(name)) {
      issues.push(
        issue(`${base}.api.allowed_expansions.${i}`, `no relationship \`${name}\`${hint(name, relNames)}`),
      );
    }
  });
  for (const [r, rel] of entity.relationships.entries()) {
    issues.push(...checkRelationship(dataset, entity, rel, `${base}.relationships.${r}`));
  }
  return issues;
}

function checkRelationship(
  dataset: DatasetConfig,
  entity: EntityConfig,
  rel: EntityConfig['relationships'][number],
  path: string,
): ConfigIssue[] {
  if (RESERVED_RELATIONSHIP_NAMES.has(rel.name))
    return [issue(`${path}.name`, `\`${rel.name}\` is reserved`)];
  const own = publicFields(dataset, entity);
  if (own.has(rel.name))
    return [issue(`${path}.name`, `\`${rel.name}\` collides with a field of the entity`)];
  const target = dataset.entities.find((candidate) => candidate.name === rel.target);
  if (!target) {
    return [
      issue(
        `${path}.target`,
        `unknown entity \`${rel.target}\`${hint(
          rel.target,
          dataset.entities.map((e) => e.name),
        )}`,
      ),
    ];
  }
  const targetFields = publicFields(dataset, target);
  const holder = rel.kind === 'belongs_to' ? own : targetFields;
  const keyField = holder.get(rel.foreign_key);
  if (!keyField) {
    return [
      issue(
        `${path}.foreign_key`,
        `\`${rel.foreign_key}\` is not a field of the ${rel.kind === 'belongs_to' ? 'entity' : 'target'}${hint(rel.foreign_key, holder.keys())}`,
      ),
    ];
  }
  const referenced = rel.kind === 'belongs_to' ? target : entity;
  const referencedTable = dataset.tables.find((t) => t.id === referenced.table);
  const pkType = referencedTable?.schema.fields.find((f) => f.name === referencedTable.primary_key)?.type;
  if (pkType !== undefined && keyField.type !== undefined && pkType !== keyField.type) {
    return [
      issue(
        `${path}.foreign_key`,
        `type ${keyField.type} does not match the referenced primary key type ${pkType}`,
      ),
    ];
  }
  return requiredFilterBypass(rel, target, targetFields, referencedTable?.primary_key, path);
}

/**
 * A relationship (its route and its expansion) reads the target by one equality: its foreign key (has_many,
 * has_one) or its primary key (belongs_to). A target that requires an equality filter on given fields may only be reached through
 * one of them, or the relationship would serve rows its own route refuses without that filter.
 */
function requiredFilterBypass(
  rel: EntityConfig['relationships'][number],
  target: EntityConfig,
  targetFields: ReadonlyMap<string, { column: string }>,
  targetPrimaryKey: string | undefined,
  path: string,
): ConfigIssue[] {
  const required = target.api.required_filters;
  if (required.length === 0) return [];
  const joinField =
    rel.kind === 'belongs_to'
      ? [...targetFields].find(([, field]) => field.column === targetPrimaryKey)?.[0]
      : rel.foreign_key;
  if (joinField !== undefined && required.includes(joinField)) return [];
  return [
    issue(
      `${path}.target`,
      `\`${target.name}\` requires an equality filter on one of ${required.join(', ')}, and this relationship reads it by \`${joinField ?? 'its primary key'}\`: drop the relationship, or add that field to its required_filters (then any caller with its rows scope may read a record by that field alone, so only where its values are as hard to guess as the filters it requires now)`,
    ),
  ];
}

/** The admin listener needs an address of its own (port 0 asks for a free one, so two of those never clash). */
function checkAdminBind(config: RelayConfig): ConfigIssue[] {
  const { bind, admin_bind: adminBind } = config.server;
  if (adminBind === undefined || !bindsMayClash(adminBind, bind)) return [];
  return [
    issue(
      'server.admin_bind',
      'must not be the listener of server.bind (the same port on the same or an overlapping address): admin routes are never served on the data plane',
    ),
  ];
}

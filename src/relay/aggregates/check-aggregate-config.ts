// Cross-field rules of dataset aggregates: paths resolve, functions fit their columns, scopes and disclosure hold.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { hint } from '../../platform/config/did-you-mean.ts';
import { unknownPrefix } from '../catalog/expand-iri.ts';
import type {
  AggregateConfig,
  DatasetConfig,
  EntityConfig,
  FieldType,
  RelayConfig,
} from '../config/schema.ts';
import { PERSONAL_SENSITIVITIES } from './aggregate-model.ts';

const NUMERIC_FUNCTIONS = new Set(['sum', 'avg', 'min', 'max', 'median', 'stddev']);
const RANGE_OPS = ['gte', 'lte', 'between'];
/** Observation objects carry their masking marks under this key, so no dimension or measure may take it. */
const RESERVED_IDS = new Set(['attributes']);

const issue = (path: string, message: string, code = 'config.validation_error'): ConfigIssue => ({
  path,
  code,
  message,
});

export function checkAggregateConfig(config: RelayConfig): ConfigIssue[] {
  return config.datasets.flatMap((dataset, d) => {
    const fieldsOf = publicFieldTypes(dataset);
    return [
      ...checkAggregateIds(dataset, `datasets.${d}.aggregates`),
      ...dataset.aggregates.flatMap((aggregate, a) =>
        checkAggregate(config, dataset, fieldsOf, aggregate, `datasets.${d}.aggregates.${a}`),
      ),
      ...checkSharedDefinitions(dataset, `datasets.${d}.aggregates`),
    ];
  });
}

function checkAggregateIds(dataset: DatasetConfig, base: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  dataset.aggregates.forEach((aggregate, a) => {
    if (seen.has(aggregate.id))
      issues.push(issue(`${base}.${a}`, `duplicate aggregate id \`${aggregate.id}\``, 'config.duplicate_id'));
    seen.add(aggregate.id);
    const ids = new Set<string>();
    const own = (list: readonly { id: string }[], key: string, what: string) => {
      list.forEach((item, i) => {
        if (ids.has(item.id)) {
          issues.push(
            issue(`${base}.${a}.${key}.${i}`, `duplicate ${what} id \`${item.id}\``, 'config.duplicate_id'),
          );
        } else if (RESERVED_IDS.has(item.id)) {
          issues.push(issue(`${base}.${a}.${key}.${i}.id`, `\`${item.id}\` is reserved`));
        }
        ids.add(item.id);
      });
    };
    own(aggregate.dimensions, 'dimensions', 'dimension or measure');
    own(aggregate.indicators, 'indicators', 'dimension or measure');
  });
  return issues;
}

function checkAggregate(
  config: RelayConfig,
  dataset: DatasetConfig,
  fieldsOf: FieldsOf,
  aggregate: AggregateConfig,
  base: string,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const names = dataset.entities.map((entity) => entity.name);
  const source = dataset.entities.find((entity) => entity.name === aggregate.source_entity);
  if (!source) {
    const name = aggregate.source_entity;
    return [issue(`${base}.source_entity`, `unknown entity \`${name}\`${hint(name, names)}`)];
  }
  const typeOf = (path: string, at: string): FieldType | undefined => {
    const resolved = resolvePath(dataset, fieldsOf, source, path);
    if (typeof resolved === 'string') issues.push(issue(at, resolved));
    return typeof resolved === 'string' ? undefined : resolved.type;
  };
  aggregate.dimensions.forEach((dimension, i) => {
    typeOf(dimension.field, `${base}.dimensions.${i}.field`);
  });
  aggregate.indicators.forEach((indicator, i) => {
    const at = `${base}.indicators.${i}`;
    if (indicator.column === undefined) {
      if (indicator.function !== 'count')
        issues.push(issue(`${at}.column`, `is required for function ${indicator.function}`));
    } else {
      const type = typeOf(indicator.column, `${at}.column`);
      if (type !== undefined && NUMERIC_FUNCTIONS.has(indicator.function) && !isNumeric(type)) {
        issues.push(
          issue(`${at}.column`, `${indicator.function} needs a number or integer field, not ${type}`),
        );
      }
    }
    const uri = indicator.definition_uri;
    const prefix = uri === undefined ? undefined : unknownPrefix(uri, config.vocabularies);
    if (prefix !== undefined) {
      issues.push(
        issue(
          `${at}.definition_uri`,
          prefix === '(none)'
            ? `\`${uri}\` is not an IRI (use https://... or a vocabularies prefix such as prefix:term)`
            : `\`${uri}\` uses unknown vocabulary prefix \`${prefix}\`${hint(prefix, Object.keys(config.vocabularies))}`,
        ),
      );
    }
  });
  const dimensionIds = aggregate.dimensions.map((dimension) => dimension.id);
  aggregate.default_group_by.forEach((id, i) => {
    if (!dimensionIds.includes(id))
      issues.push(
        issue(`${base}.default_group_by.${i}`, `unknown dimension \`${id}\`${hint(id, dimensionIds)}`),
      );
  });
  const allowed = new Map<string, readonly string[]>();
  aggregate.allowed_filters.forEach((rule, i) => {
    if (allowed.has(rule.field))
      issues.push(issue(`${base}.allowed_filters.${i}.field`, `\`${rule.field}\` is listed twice`));
    allowed.set(rule.field, rule.ops);
    typeOf(rule.field, `${base}.allowed_filters.${i}.field`);
  });
  aggregate.required_filters.forEach((name, i) => {
    if (!allowed.get(name)?.includes('eq')) {
      issues.push(
        issue(`${base}.required_filters.${i}`, `\`${name}\` must be an allowed filter with the eq operator`),
      );
    }
  });
  if (aggregate.temporal_field !== undefined) {
    const at = `${base}.temporal_field`;
    const type = typeOf(aggregate.temporal_field, at);
    if (type === 'boolean') issues.push(issue(at, 'a boolean field cannot take a range'));
    if (!allowed.get(aggregate.temporal_field)?.some((op) => RANGE_OPS.includes(op))) {
      issues.push(issue(at, 'must be an allowed filter with a range operator (gte, lte or between)'));
    }
  }
  for (const [key, scope] of Object.entries(aggregate.access)) {
    if (typeof scope === 'string' && !scope.startsWith(`${dataset.id}:`)) {
      issues.push(issue(`${base}.access.${key}`, `scope \`${scope}\` must start with \`${dataset.id}:\``));
    }
  }
  const control = aggregate.disclosure_control;
  const minCell = control.min_group_size ?? control.min_cell_size;
  if (
    aggregate.access.aggregate_only_execution &&
    PERSONAL_SENSITIVITIES.has(dataset.sensitivity) &&
    minCell < 2
  ) {
    issues.push(
      issue(
        `${base}.disclosure_control.${control.min_group_size === undefined ? 'min_cell_size' : 'min_group_size'}`,
        `must be at least 2 for aggregate_only_execution on a ${dataset.sensitivity} dataset`,
      ),
    );
  }
  return issues;
}

const isNumeric = (type: FieldType) => type === 'number' || type === 'integer';

/** The field's type, or why the path does not resolve. */
function resolvePath(
  dataset: DatasetConfig,
  fieldsOf: FieldsOf,
  source: EntityConfig,
  path: string,
): { type: FieldType | undefined } | string {
  const dot = path.indexOf('.');
  if (dot < 0) return fieldType(fieldsOf, source, path);
  const name = path.slice(0, dot);
  const relationship = source.relationships.find((rel) => rel.name === name);
  if (!relationship) {
    const names = source.relationships.map((rel) => rel.name);
    return `entity \`${source.name}\` has no relationship \`${name}\`${hint(name, names)}`;
  }
  if (relationship.kind !== 'belongs_to')
    return `\`${name}\` is ${relationship.kind}: only belongs_to relationships can be followed`;
  const target = dataset.entities.find((entity) => entity.name === relationship.target);
  // An unknown target is reported on the relationship itself.
  return target ? fieldType(fieldsOf, target, path.slice(dot + 1)) : { type: undefined };
}

function fieldType(
  fieldsOf: FieldsOf,
  entity: EntityConfig,
  name: string,
): { type: FieldType | undefined } | string {
  const fields = fieldsOf(entity);
  if (!fields.has(name)) {
    return `entity \`${entity.name}\` has no field \`${name}\`${hint(name, [...fields.keys()])}`;
  }
  return { type: fields.get(name) };
}

/** An entity's public fields, each with the type of the column it serves (`undefined` for an unknown column). */
type FieldsOf = (entity: EntityConfig) => ReadonlyMap<string, FieldType | undefined>;

/**
 * Built once per entity of the dataset: an aggregate may resolve as many filters and dimensions as its entity has
 * fields, and rebuilding the map for each would take the time of their product.
 */
function publicFieldTypes(dataset: DatasetConfig): FieldsOf {
  const built = new Map<EntityConfig, Map<string, FieldType | undefined>>();
  return (entity) => {
    let fields = built.get(entity);
    if (fields === undefined) {
      const table = dataset.tables.find((candidate) => candidate.id === entity.table);
      const columns = new Map(table?.schema.fields.map((field) => [field.name, field.type]));
      const listed =
        entity.fields ?? table?.schema.fields.map((field) => ({ name: field.name, from: undefined })) ?? [];
      fields = new Map();
      for (const field of listed) {
        // The first of two fields of one name, as a search would find.
        if (!fields.has(field.name)) fields.set(field.name, columns.get(field.from ?? field.name));
      }
      built.set(entity, fields);
    }
    return fields;
  };
}

/** Discovery merges measures by id across a dataset's aggregates, so one measure id means one computation. */
function checkSharedDefinitions(dataset: DatasetConfig, base: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const measures = new Map<string, string>();
  dataset.aggregates.forEach((aggregate, a) => {
    aggregate.indicators.forEach((indicator, i) => {
      const unit = indicator.unit_measure === undefined ? '' : ` in ${indicator.unit_measure}`;
      const meaning = `${indicator.function}(${indicator.column ?? '*'})${unit}`;
      const earlier = measures.get(indicator.id);
      if (earlier !== undefined && earlier !== meaning) {
        issues.push(
          issue(
            `${base}.${a}.indicators.${i}`,
            `measure \`${indicator.id}\` is ${earlier} in another aggregate of this dataset; use another id`,
          ),
        );
      }
      measures.set(indicator.id, earlier ?? meaning);
    });
  });
  return issues;
}

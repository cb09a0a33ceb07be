// Problems raised by the relay's own stages (lookup, filters, pagination, readiness, aggregates, admin).
import { createProblemFactory, type ProblemCatalog } from '../platform/problem/problem.ts';

export const RELAY_PROBLEMS = {
  'schema.unknown_resource': {
    status: 404,
    title: 'Unknown resource',
    description:
      'The entity, record or relationship does not exist in a dataset the caller can see, or the metadata document does not (a form, profile, catalog record or DCAT profile id, a dataset without a policy, a document this catalogue does not publish).',
  },
  'schema.unknown_aggregate': {
    status: 404,
    title: 'Unknown aggregate',
    description:
      'The aggregate, or the measure or dimension named in a discovery path, does not exist among those the caller can see.',
  },
  'schema.resource_unavailable': {
    status: 503,
    title: 'Resource unavailable',
    description:
      'The relay has not loaded every table yet: `/ready` answers it with counts (`loaded_count`, `failed_count`, `not_ready_count`, `waiting_count`, `unresolved_count`), and reads of data until the first load is over. An admin reload answers it when asked before the first load was over (nothing is queued; `waiting` names the tables waiting for their database) or when no relay process answered it (`--workers`; it may not have run). Retry after `Retry-After`.',
  },
  'entity.filter_required': {
    status: 400,
    title: 'Filter required',
    description:
      'A collection read omitted every required filter (an equality on one of them), or a record or its relationships were read by id in an entity whose id is not one of them; `detail` lists the alternatives.',
  },
  'pagination.cursor_invalidated': {
    status: 400,
    title: 'Pagination cursor invalidated',
    description:
      'The cursor belongs to another query intent (filters, projection, purpose, caller) or an older data generation; restart from the first page.',
  },
  'pagination.cursor_malformed': {
    status: 400,
    title: 'Pagination cursor malformed',
    description: 'The cursor was not issued by this relay or was altered.',
  },
  'filter.not_allowed': {
    status: 400,
    title: 'Filter not allowed',
    description:
      'The field or operator is not in the entity `allowed_filters`, or the parameter is not accepted here.',
  },
  'filter.unsupported_op': {
    status: 400,
    title: 'Unsupported filter operator',
    description: 'The parameter suffix is not one of `.eq`, `.in`, `.gte`, `.lte`, `.between`.',
  },
  'filter.unknown_field': {
    status: 400,
    title: 'Unknown field',
    description: 'A `fields` projection is empty or names a field the entity does not expose.',
  },
  'filter.invalid_value': {
    status: 400,
    title: 'Invalid filter value',
    description: 'A filter value does not parse as the field type, is empty, or the parameter is repeated.',
  },
  'filter.invalid_range': {
    status: 400,
    title: 'Invalid range',
    description: '`.between` needs exactly two values with the lower bound first.',
  },
  'filter.too_many_filters': {
    status: 400,
    title: 'Too many filters',
    description: 'More than 20 filter parameters were sent.',
  },
  'filter.too_many_values': {
    status: 413,
    title: 'Too many values',
    description: 'An `.in` filter carries more than 100 values.',
  },
  'filter.limit_out_of_range': {
    status: 400,
    title: 'Limit out of range',
    description: '`limit` is not an integer between 1 and the entity `max_limit`.',
  },
  'offering.not_found': {
    status: 404,
    title: 'Evidence offering not found',
    description:
      'No evidence offering with that id is visible to the caller (unknown and hidden offerings answer alike).',
  },
  'expand.not_allowed': {
    status: 400,
    title: 'Expansion not allowed',
    description: 'An `expand` name is not in the entity `allowed_expansions` (no `*`, no nesting).',
  },
  'aggregate.format_unsupported': {
    status: 400,
    title: 'Format unsupported',
    description:
      'The requested aggregate format (`f`, body `format` or `Accept`) is not json, csv or sdmx-json (SDMX-JSON 2.1).',
  },
  'aggregate.filter_required': {
    status: 400,
    title: 'Filter required',
    description: 'An aggregate query omitted every required filter; `detail` lists the alternatives.',
  },
  'aggregate.invalid_query': {
    status: 400,
    title: 'Invalid aggregate query',
    description:
      'The query body is not an object of `measures` (or its old name `indicators`), `group_by`, `filters`, `temporal`, `max_rows` and `format`, or a member is malformed, empty or repeated; or `temporal` is sent for an aggregate without a `temporal_field`, or a POST carries a query parameter other than `f`.',
  },
  'aggregate.unknown_measure': {
    status: 400,
    title: 'Unknown measure',
    description: 'A requested measure is not declared by the aggregate (see its structure).',
  },
  'aggregate.unknown_dimension': {
    status: 400,
    title: 'Unknown dimension',
    description: 'A `group_by` entry is not a dimension of the aggregate (see its structure).',
  },
  'aggregate.limit_exceeded': {
    status: 400,
    title: 'Aggregate limit exceeded',
    description: 'More than 20 measures or 5 group-by dimensions, or `max_rows` outside 1 to 10,000.',
  },
  'datasource.unavailable': {
    status: 503,
    title: 'Data source unavailable',
    description:
      'The PostgreSQL database behind a live entity cannot be reached (or no pooled connection freed up within `connect_timeout`), or ended the read for a reason that passes (a deadlock, a standby conflict with recovery, a cancel another of its sessions asked for); retry after `Retry-After`.',
  },
  'datasource.timeout': {
    status: 504,
    title: 'Data source timeout',
    description:
      "A live read ran longer than the source `query_timeout`, or waited for a lock longer than the database's own `lock_timeout`.",
  },
  'datasource.query_failed': {
    status: 502,
    title: 'Data source query failed',
    description:
      'The database behind a live entity refused the read (table or column gone, permission), or its answer passed 64 MiB; the relay log has the reason.',
  },
  'datasource.row_invalid': {
    status: 502,
    title: 'Data source row invalid',
    description:
      'A row read live does not fit the declared schema (for example a NaN in a number column, a null in a non-nullable field, or a primary key the next row repeats); `detail` names the field.',
  },
  'admin.unknown_resource': {
    status: 404,
    title: 'Unknown resource',
    description: 'An admin reload names a dataset or table this relay does not serve.',
  },
  'admin.reload_failed': {
    status: 500,
    title: 'Reload failed',
    description:
      'A source failed to load during a reload; the previous data keeps being served (a live PostgreSQL table holds none: its reads continue against the database). `counts` and `failures` say which tables failed and why (by code).',
  },
  'admin.posture_tier_unsupported': {
    status: 400,
    title: 'Posture tier unsupported',
    description:
      '`tier` on `/admin/v1/posture` is not one of the supported tiers (`restricted`), or is given more than once.',
  },
} as const satisfies ProblemCatalog;

export const relayProblem = createProblemFactory(RELAY_PROBLEMS);

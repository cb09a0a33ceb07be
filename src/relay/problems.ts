// Problems raised by the relay's own stages (lookup, filters, pagination, readiness).
import { createProblemFactory, type ProblemCatalog } from '../platform/problem/problem.ts';

export const RELAY_PROBLEMS = {
  'schema.unknown_resource': {
    status: 404,
    title: 'Unknown resource',
    description: 'The entity, record or relationship does not exist in a dataset the caller can see.',
  },
  'schema.resource_unavailable': {
    status: 503,
    title: 'Resource unavailable',
    description: 'The relay has not finished loading its sources (see `/ready`); retry after `Retry-After`.',
  },
  'entity.filter_required': {
    status: 400,
    title: 'Filter required',
    description: 'A collection read omitted every required filter; `detail` lists the alternatives.',
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
    description: 'A `fields` projection names a field the entity does not expose.',
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
  'expand.not_allowed': {
    status: 400,
    title: 'Expansion not allowed',
    description: 'An `expand` name is not in the entity `allowed_expansions` (no `*`, no nesting).',
  },
} as const satisfies ProblemCatalog;

export const relayProblem = createProblemFactory(RELAY_PROBLEMS);

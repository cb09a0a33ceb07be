// The `datasets[].aggregates[]` part of the relay config schema: declared statistics over one source entity.
import { z } from 'zod';
import { filterOps, id, iriText, list, scopeName, text } from './schema-parts.ts';

// `field` or `relationship.field`: a field of an aggregate's source entity, or one reached through belongs_to.
const fieldPath = z
  .string()
  .regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$/, 'must be `field` or `relationship.field`');

/** Past a million rows a group is not a small cell: a larger minimum would only suppress every group there is. */
const MAX_MIN_CELL_SIZE = 1_000_000;

const DISCLOSURE_METHODS = ['k-anonymity'] as const;

export const AGGREGATE_FUNCTIONS = [
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'median',
  'count_distinct',
  'stddev',
] as const;

const aggregateDimension = z.strictObject({
  id: id('dimension id'),
  label: text('title').optional(),
  description: text('description').optional(),
  field: fieldPath.describe(
    'Field of the source entity, or `relationship.field` through one of its belongs_to relationships.',
  ),
  codelist: iriText().optional(),
});

const aggregateIndicator = z.strictObject({
  id: id('measure id'),
  label: text('title').optional(),
  description: text('description').optional(),
  function: z.enum(AGGREGATE_FUNCTIONS).describe('`stddev` is the sample standard deviation.'),
  column: fieldPath
    .optional()
    .describe('Field (or `relationship.field`) aggregated; `count` without it counts rows.'),
  unit_measure: text('short').optional(),
  unit_mult: z
    .number()
    .int()
    .min(-15)
    .max(15)
    .optional()
    .describe('Power-of-ten multiplier of the unit (SDMX UNIT_MULT).'),
  decimals: z.number().int().min(0).max(15).optional().describe('Results are rounded to this many decimals.'),
  frequency: text('short').optional(),
  definition_uri: iriText()
    .optional()
    .describe('IRI defining the measure (absolute or a vocabularies prefix).'),
});

export const aggregate = z.strictObject({
  id: id('aggregate id'),
  title: text('title').optional(),
  description: text('description').default(''),
  source_entity: id('entity name'),
  dimensions: list(aggregateDimension).default([]),
  indicators: z.array(aggregateIndicator).min(1).max(20).describe('The measures, computed per group.'),
  default_group_by: z
    .array(z.string())
    .max(5)
    .default([])
    .describe('Dimension ids grouped when a query names none.'),
  allowed_filters: list(z.strictObject({ field: fieldPath, ops: filterOps() }), 'fields').default([]),
  required_filters: list(z.string(), 'fields')
    .default([])
    .describe('A query needs an equality filter on one of these allowed filter fields.'),
  temporal_field: fieldPath
    .optional()
    .describe('Field a query `temporal` range applies to; needs an allowed range filter.'),
  access: z
    .strictObject({
      metadata_scope: scopeName().optional().describe('Discovery scope; default `<dataset>:metadata`.'),
      aggregate_scope: scopeName().optional().describe('Execution scope; default `<dataset>:aggregate`.'),
      aggregate_only_execution: z
        .boolean()
        .default(false)
        .describe(
          'Execute with the aggregate scope alone, without the rows scope of the entities read; personal data then needs a minimum cell size of at least 2.',
        ),
    })
    .default({ aggregate_only_execution: false }),
  disclosure_control: z
    .strictObject({
      method: z
        .array(z.enum(DISCLOSURE_METHODS))
        .min(1)
        .max(DISCLOSURE_METHODS.length)
        .default(['k-anonymity'])
        .describe('Each method at most once.'),
      min_cell_size: z
        .number()
        .int()
        .min(1)
        .max(MAX_MIN_CELL_SIZE)
        .default(5)
        .describe(
          'Groups of fewer source rows are suppressed. It counts rows, not people, and protects each answer on its own: see what it does not prevent in relay-api.md.',
        ),
      min_group_size: z
        .number()
        .int()
        .min(1)
        .max(MAX_MIN_CELL_SIZE)
        .optional()
        .describe('Overrides `min_cell_size` when set.'),
      suppression: z
        .enum(['omit', 'mask', 'null'])
        .default('omit')
        .describe('`omit` drops small groups; `mask` and `null` keep their keys with null measures.'),
      report_suppressed_rows: z
        .boolean()
        .optional()
        .describe(
          'Report how many groups were suppressed; by default reported except on personal, confidential and secret datasets. A reported count tells whether a filter matched any row, even under `omit`.',
        ),
    })
    .default({ method: ['k-anonymity'], min_cell_size: 5, suppression: 'omit' }),
});

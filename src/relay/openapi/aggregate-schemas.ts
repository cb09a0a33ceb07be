// Component schemas of aggregate results, native JSON (render-aggregate-json.ts) and SDMX-JSON 2.1
// (render-aggregate-sdmx.ts), so a generated client reads them typed. Objects stay open to later members; the cells of
// an observation depend on the query (its group_by dimensions and measures), so they are described by type only.
type JsonSchema = Record<string, unknown>;

const string = { type: 'string' };
const nullableString = { type: ['string', 'null'] };
const object = (required: readonly string[], properties: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  required: [...required],
  properties,
});
const link = object(['rel', 'href'], { rel: string, href: string, type: string });

const completeness = object(['complete', 'truncated'], {
  complete: {
    type: 'boolean',
    description: 'False when groups were cut by max_rows, or omitted, masked or thinned.',
  },
  truncated: { type: 'boolean' },
});
const disclosureControl = object(
  ['method', 'min_cell_size', 'suppression', 'suppressed_observations', 'query_budget'],
  {
    method: { type: 'array', items: string },
    min_cell_size: { type: 'integer' },
    suppression: {
      type: 'string',
      enum: ['omit', 'null'],
      description:
        'omit: small groups are left out; null: kept with null measures (configured as mask or null).',
    },
    suppressed_observations: {
      type: ['integer', 'null'],
      description: 'Null where omissions are not reported.',
    },
    query_budget: object(['tracked', 'scope'], { tracked: { type: 'boolean' }, scope: string }),
  },
);
const cell = { type: ['string', 'number', 'boolean', 'null'] };

const aggregateResult = object(
  [
    'dataset_id',
    'aggregate_id',
    'title',
    'observations',
    'structure',
    'completeness',
    'disclosure_control',
    'freshness',
    'links',
  ],
  {
    dataset_id: string,
    aggregate_id: string,
    title: string,
    observations: {
      type: 'array',
      description:
        'One object per group: each group_by dimension and requested measure by id (a suppressed measure null), ' +
        'and `attributes` naming the suppressed measures (`<measure>$status: "S"`).',
      items: {
        type: 'object',
        properties: {
          attributes: { type: 'object', additionalProperties: { const: 'S' } },
        },
        additionalProperties: cell,
      },
    },
    structure: object(['dimensions', 'measures'], {
      dimensions: {
        type: 'array',
        items: object(['id', 'label', 'field', 'type'], {
          id: string,
          label: string,
          description: nullableString,
          field: string,
          type: string,
          codelist: nullableString,
        }),
      },
      measures: {
        type: 'array',
        items: object(['id', 'label', 'aggregation_method'], {
          id: string,
          label: string,
          description: nullableString,
          aggregation_method: string,
          column: nullableString,
          unit_measure: nullableString,
          unit_multiplier: { type: ['integer', 'null'] },
          decimals: { type: ['integer', 'null'] },
          frequency: nullableString,
          definition_uri: nullableString,
        }),
      },
    }),
    completeness,
    disclosure_control: disclosureControl,
    freshness: object(['computed_at'], {
      computed_at: { type: 'string', format: 'date-time' },
      as_of: { type: 'string', format: 'date-time' },
    }),
    links: { type: 'array', items: link },
  },
);

const sdmxMessage = object(['meta', 'data'], {
  $schema: string,
  meta: object(['id', 'prepared', 'sender'], {
    schema: string,
    id: string,
    prepared: { type: 'string', format: 'date-time' },
    test: { type: 'boolean' },
    sender: object(['id'], { id: string, name: string }),
    'x-completeness': completeness,
    'x-disclosureControl': disclosureControl,
    'x-asOf': { type: 'string', format: 'date-time' },
  }),
  data: object(['structures', 'dataSets'], {
    structures: { type: 'array', items: object(['name', 'dimensions', 'measures'], {}) },
    dataSets: {
      type: 'array',
      items: object(['structure', 'action', 'observations'], {
        structure: { type: 'integer' },
        action: string,
        observations: {
          type: 'object',
          description: 'By `:`-joined dimension value indexes: the measures in order, then the status index.',
          additionalProperties: { type: 'array', items: { type: ['number', 'null'] } },
        },
      }),
    },
  }),
});

export const AGGREGATE_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  AggregateResult: aggregateResult,
  SdmxDataMessage: sdmxMessage,
};

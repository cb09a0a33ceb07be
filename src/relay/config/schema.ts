// The relay config schema: the single source of the config types, their validation and docs/configuration.md.
import { z } from 'zod';
import { auditConfigSchema } from '../../platform/config/audit-config-schema.ts';
import { durationMs } from '../../platform/config/duration.ts';
import { envVarName } from '../../platform/config/env-var-name.ts';
import { oidcConfigSchema } from '../../platform/config/oidc-config-schema.ts';
import { AGGREGATE_FUNCTIONS, aggregate } from './aggregate-schema.ts';
import { accessRights, sensitivity, updateFrequency } from './dataset-classification.ts';
import { postgresSource } from './postgres-source-schema.ts';
import {
  COUNT_MAX,
  type FILTER_OPS,
  filterOps,
  ID_MAX,
  id,
  iriSafeUrl,
  iriText,
  list,
  scopeName,
  text,
} from './schema-parts.ts';
import { server } from './server-schema.ts';
import { SHEET_ROWS, sheetRange } from './sheet-range-schema.ts';

export { LEGACY_KEYS } from './legacy-keys.ts';
export { FILTER_OPS, ID_PATTERN } from './schema-parts.ts';
export { AGGREGATE_FUNCTIONS };

export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'timestamp'] as const;
export const SCOPE_LEVELS = ['metadata', 'rows', 'evidence_verification', 'aggregate', 'admin'] as const;
export const ADMIN_SCOPES = ['relay:admin', 'relay:ops_read', 'relay:metrics_read'] as const;

const catalog = z.strictObject({
  title: text('title').min(1),
  description: text('description').optional(),
  base_url: z
    .url({ abort: true })
    .max(2048)
    .refine((url) => /^https?:/i.test(url), 'must be an http or https URL')
    .refine(...iriSafeUrl)
    .describe('Public base URL of this relay, used in links (http or https).'),
  publisher: text('name').min(1),
  participant_id: iriText().optional(),
  publisher_iri: iriText().optional(),
  authority_type: iriText().optional(),
  default_spatial_coverage: iriText().optional(),
});

const apiKey = z.strictObject({
  id: id('api key id'),
  fingerprint: z.strictObject({
    provider: z.literal('env'),
    name: envVarName().describe('Environment variable holding sha256:<64 lowercase hex> of the raw key.'),
    commitment: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/)
      .optional()
      .describe(
        'Binds the key id to the fingerprint, as `ambit keys generate` prints it; one the reference relay (`registry-relay`) printed for the same id and fingerprint is accepted too.',
      ),
  }),
  scopes: list(scopeName())
    .default([])
    .describe(
      "The admin listener's `relay:admin` (reloads), `relay:ops_read` (capabilities, posture) and `relay:metrics_read` (`/metrics`); `<dataset>:metadata`, `<dataset>:rows` or `<dataset>:aggregate` (see relay-api.md); or a scope the dataset's `access` blocks name.",
    ),
});

const oidc = oidcConfigSchema;

const auth = z.strictObject({
  mode: z.enum(['api_key', 'oidc']),
  api_keys: list(apiKey).optional(),
  oidc: oidc.optional(),
});

const audit = auditConfigSchema.extend({
  format: z.literal('jsonl').default('jsonl'),
  chain: z
    .boolean()
    .optional()
    .describe(
      'Accepted for compatibility with existing configs: records are always hash-chained, whatever it says.',
    ),
});

// CR and LF end records wherever they stand outside quotes: as a delimiter or a quote they would split or merge rows.
const csvCharacter = (what: string) =>
  z
    .string({
      error: (issue) =>
        typeof issue.input === 'number'
          ? `write the ${what} as the character itself, quoted (\`${what === 'quote' ? `"'"` : '";"'}\`), not as its byte number`
          : undefined,
    })
    .length(1)
    .refine((char) => char !== '\r' && char !== '\n', `a ${what} cannot be a line break (CR or LF)`);
const csvFormat = z
  .strictObject({
    header_row: z
      .boolean({
        error: (issue) =>
          typeof issue.input === 'number'
            ? 'is `true` or `false`, not a row number: `header_row: true` when the first record names the columns (a header further down is not read)'
            : undefined,
      })
      .default(true)
      .describe(
        'The first record names the columns; an empty name is `column_<n>` (its position), as are all of them when false.',
      ),
    delimiter: csvCharacter('delimiter').default(',').describe('Not CR or LF.'),
    quote: csvCharacter('quote').default('"').describe('Not CR or LF, nor the delimiter.'),
  })
  .refine((csv) => csv.quote !== csv.delimiter, {
    message: 'the quote must differ from the delimiter',
    path: ['quote'],
  })
  .describe(
    'CSV, as is a `.csv` or `.tsv` (tab-delimited) path without `format`: UTF-8 text (a BOM is allowed, other encodings are refused), records ending with CRLF, LF or CR, mixed freely. A quoted field ends at its closing quote: text after it (`"a"b`) is refused (`ingest.parse_error`, the message gives the line); a quote that does not open a field is text (`12" pipe`). A record is at most 64 MiB (67,108,864 bytes of cells): a longer one, such as a line that never ends or a quote never closed in a large file, is refused (`ingest.parse_error`, naming its row and line) before it is read whole.',
  );
const xlsxFormat = z.strictObject({
  sheet: text('short').optional(),
  header_row: z
    .number()
    .int()
    .positive()
    .max(SHEET_ROWS)
    .default(1)
    .describe(
      'The sheet row naming the columns, the data being the rows below it; with `data_range`, whichever of this row and the first row of the range is further down the sheet. An empty header cell is `column_<n>` (its position in the region). 1048576 is the last row a sheet has.',
    ),
  data_range: sheetRange().optional(),
});
const sourceFormat = z
  .strictObject({
    csv: csvFormat.optional(),
    xlsx: xlsxFormat
      .optional()
      .describe(
        'XLSX, as is a `.xlsx` path without `format`. Its sheet and shared strings must be UTF-8 (as Excel writes them); other bytes are refused (`ingest.parse_error`), as in CSV. A cell without a reference (`<c>` with no `r`, as the format allows) follows the cell before it in its row, the first in column A, and a row without one follows the row before it; a cell that would so come at or before the cell before it is refused (`ingest.parse_error`, naming both cells). A `<!DOCTYPE>` in the workbook, its relationships, the sheet or its shared strings is refused (`ingest.parse_error`): no entity is expanded and no external one read. A cell the decoder cannot read as its type, such as a shared string index past the shared strings, is refused (`ingest.parse_error`, naming the cell). A relationship target of the sheet, the shared strings or the styles with `.` or `..` segments is refused (`ingest.parse_error`, naming the relationship and its target), as the decoder reads targets as written: write it relative to `xl/` or from the root of the package (`/xl/worksheets/sheet1.xml`). The XML parts may together expand to at most 1 GiB, and one part to at most 536,870,888 characters of text, the longest string the runtime makes (`ingest.file_too_large`, naming the part).',
      ),
    parquet: z
      .strictObject({})
      .optional()
      .describe(
        'Parquet, as is a `.parquet` path without `format`. A DECIMAL column is read exactly: a `string` field serves its decimal text (`0.57`, trailing zeros dropped), a `number` field the double nearest it, an `integer` field a whole value within ±(2^53 - 1). Timestamps finer than a millisecond are floored to the millisecond, as text timestamps are. Strings, and JSON columns, are served as the text stored; one whose bytes are not UTF-8 is refused (`ingest.type_mismatch`), as in CSV. An INT64 past ±(2^53 - 1) is served exactly in a `string` field, as the double nearest it in a `number` field, and refused in an `integer` field. A TIME column (MILLIS, MICROS or NANOS, whether marked adjusted to UTC or not) is served in a `string` field as its time of day, `HH:MM:SS` with the fraction of a second in all the digits of its unit when not zero (`01:00:00`, `01:00:00.120`, `01:00:00.123456`), no offset written; declared as any other type, and for a count outside the day, it is refused (`ingest.type_mismatch`). A dictionary-encoded page in a column chunk without a dictionary page, and a dictionary index past its dictionary, are refused (`ingest.parse_error`, the latter naming the row and column) rather than served as indices or nulls. Column chunks may be stored uncompressed or compressed with SNAPPY, GZIP, BROTLI, ZSTD, LZ4 or LZ4_RAW; a file with a chunk in another codec (LZO, or a number the format does not define) is refused when it is opened, before any row is read (`ingest.parse_error`, naming the column and the codec).',
      ),
  })
  .refine((f) => [f.csv, f.xlsx, f.parquet].filter((x) => x !== undefined).length === 1, {
    message: 'choose exactly one of csv, xlsx, parquet',
  });

const fileSource = z.strictObject({
  type: z.literal('file'),
  path: text('path').min(1).describe('Relative to the config file.'),
  format: sourceFormat.optional().describe('Inferred from the file extension when omitted.'),
});

const refresh = z
  .strictObject({
    mode: z
      .enum(['mtime', 'interval', 'manual'])
      .describe(
        '`mtime`: poll the source change token every `interval` and reload when it changes; `interval`: reload every `interval`; `manual`: only through the admin listener.',
      ),
    // 24d is the longest whole-day period a Node timer can wait (about 24.8 days).
    interval: durationMs({ min: 1000, max: 24 * 86_400_000 })
      .default(60_000)
      .describe('Poll or reload period, 1s to 24d.'),
  })
  .describe('When the table is reloaded; a reload that fails keeps the previous data.');

const tableField = z.strictObject({
  // Every name referring to a column (primary and foreign keys, `from`, filters) must match one: this bounds them all.
  name: text('name').min(1),
  type: z
    .enum(FIELD_TYPES)
    .describe(
      '`integer`, `number`: text may have a sign and spaces around it, not a thousands separator or hex; `number`: a finite double (a value beyond about ±1.8e308 is refused); `boolean`: `true`/`false`, `yes`/`no`, `t`/`f`, `y`/`n` or `1`/`0`, in any case; `date`: `YYYY-MM-DD`, years 0001 to 9999; `timestamp`: ISO 8601, read as UTC without an offset, within the years 0000 to 9999 (UTC) whatever the source.',
    ),
  nullable: z.boolean().default(true),
  sensitive: z.boolean().default(false),
  concept_uri: iriText().optional(),
  codelist: iriText().optional(),
  unit: text('short').optional(),
  language: text('short').optional(),
  description: text('description').optional(),
});

const materialization = z.enum(['snapshot', 'live']);

const table = z.strictObject({
  id: id('table id'),
  source: z.discriminatedUnion('type', [fileSource, postgresSource]),
  materialization: materialization
    .optional()
    .describe(
      '`snapshot`: loaded into memory. `live` (postgres `table` sources only): every read is a query on the database. Overrides the dataset `defaults.materialization`; `snapshot` when neither is set.',
    ),
  refresh: refresh
    .optional()
    .describe('Overrides the dataset `defaults.refresh`; `manual` when neither is set.'),
  primary_key: z.string().min(1),
  schema: z.strictObject({
    strict: z
      .boolean()
      .default(true)
      .describe('Reject source columns not declared here (else they are dropped).'),
    fields: list(tableField, 'fields').min(1),
  }),
});

const entityField = z.strictObject({
  name: id('field name'),
  from: z.string().optional().describe('Table column; defaults to the field name.'),
  sensitive: z.boolean().optional().describe('Overrides the table column flag. Redacts audit values only.'),
  concept_uri: iriText().optional(),
  codelist: iriText().optional(),
  unit: text('short').optional(),
  language: text('short').optional(),
  description: text('description').optional(),
});

const relationship = z.strictObject({
  name: id('relationship name'),
  kind: z.enum(['belongs_to', 'has_many', 'has_one']),
  target: id('target entity'),
  foreign_key: z.string().min(1).describe('belongs_to: field of this entity; has_*: field of the target.'),
  concept_uri: iriText().optional(),
});

const entity = z.strictObject({
  name: id('entity name'),
  title: text('title').optional(),
  description: text('description').optional(),
  table: id('table id'),
  concept_uri: iriText().optional(),
  fields: list(entityField, 'fields')
    .optional()
    .describe(
      'Public fields; all table columns when omitted (each column name then must match `^[a-z][a-z0-9_]*$` like a field name). No field may be named `limit`, `cursor`, `fields` or `expand` (query parameters of the records route).',
    ),
  relationships: list(relationship).default([]),
  access: z
    .strictObject({
      metadata_scope: scopeName()
        .optional()
        .describe('Schema and metadata scope; default `<dataset>:metadata`. Must start with `<dataset>:`.'),
      read_scope: scopeName()
        .optional()
        .describe(
          'Scope of the records, record and relationship routes; default `<dataset>:rows`. Must start with `<dataset>:`.',
        ),
      aggregate_scope: scopeName()
        .optional()
        .describe(
          'Accepted for compatibility with existing configs, without effect: an aggregate runs under its own `access.aggregate_scope` (default `<dataset>:aggregate`).',
        ),
      evidence_verification_scope: scopeName()
        .optional()
        .describe('Accepted for compatibility with existing configs, without effect: no route reads it.'),
    })
    .default({}),
  api: z
    .strictObject({
      default_limit: z.number().int().min(1).max(10_000).default(50),
      max_limit: z.number().int().min(1).max(10_000).default(1000),
      require_purpose_header: z.boolean().default(false),
      required_filters: list(z.string(), 'fields')
        .default([])
        .describe(
          'A read needs an equality filter on one of these allowed filter fields; a read by id only when the primary key is one of them, and a relationship into the entity must join on one.',
        ),
      allowed_filters: list(z.strictObject({ field: z.string(), ops: filterOps() }), 'fields')
        .default([])
        .describe('Each field once, with all its operators.'),
      allowed_expansions: list(z.string()).default([]),
    })
    .default({
      default_limit: 50,
      max_limit: 1000,
      require_purpose_header: false,
      required_filters: [],
      allowed_filters: [],
      allowed_expansions: [],
    }),
});

const dataset = z.strictObject({
  id: id('dataset id'),
  title: text('title').min(1),
  description: text('description').default(''),
  owner: text('name').optional(),
  sensitivity,
  access_rights: accessRights,
  update_frequency: updateFrequency,
  conforms_to: list(iriText()).default([]),
  applicable_legislation: list(iriText()).default([]),
  spatial_coverage: iriText().optional(),
  status: iriText().optional(),
  defaults: z
    .strictObject({
      refresh: refresh.optional(),
      materialization: materialization
        .optional()
        .describe('`snapshot` or `live` for every table that does not set its own.'),
    })
    .default({})
    .describe('Settings every table of the dataset inherits unless it sets its own.'),
  tables: list(table).default([]),
  entities: list(entity).default([]),
  aggregates: list(aggregate).default([]).describe('Declared statistics over one source entity.'),
});

const metadata = z.strictObject({
  source: z.strictObject({
    path: text('path')
      .min(1)
      .describe('Metadata manifest (`schema_version: registry-manifest/v1`), relative to the config file.'),
    digest: z
      .string()
      .optional()
      .describe('`sha256:<64 hex>` of the manifest file; startup fails when the file differs.'),
  }),
});

export const relayConfigSchema = z.strictObject({
  instance: z
    .strictObject({
      id: text('short').default('ambit-relay-local'),
      environment: text('short').optional(),
      owner: text('name').optional(),
      jurisdiction: iriText().optional(),
    })
    .optional(),
  server,
  catalog,
  vocabularies: z
    .record(
      z
        .string()
        .max(ID_MAX)
        .regex(/^[a-z][a-z0-9_-]*$/),
      z
        .url()
        .max(2048)
        .refine(...iriSafeUrl),
    )
    .refine((prefixes) => Object.keys(prefixes).length <= COUNT_MAX.items, {
      message: `must map at most ${COUNT_MAX.items} prefixes`,
    })
    .default({})
    .describe(`Prefixes of compact IRIs (\`prefix:term\`): at most ${COUNT_MAX.items}.`),
  auth,
  audit,
  metadata: metadata
    .optional()
    .describe('Portable metadata manifest; without it /metadata/* is rendered from this config.'),
  datasets: list(dataset),
});

export type RelayConfig = z.infer<typeof relayConfigSchema>;
export type DatasetConfig = RelayConfig['datasets'][number];
export type TableConfig = DatasetConfig['tables'][number];
export type TableFieldConfig = TableConfig['schema']['fields'][number];
export type FileSourceConfig = Extract<TableConfig['source'], { type: 'file' }>;
export type { PostgresSourceConfig } from './postgres-source-schema.ts';
export type RefreshConfig = NonNullable<TableConfig['refresh']>;
export type EntityConfig = DatasetConfig['entities'][number];
export type AggregateConfig = DatasetConfig['aggregates'][number];
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];
export type FieldType = (typeof FIELD_TYPES)[number];
export type FilterOp = (typeof FILTER_OPS)[number];
export type OidcConfig = NonNullable<RelayConfig['auth']['oidc']>;
export type AuditConfig = RelayConfig['audit'];

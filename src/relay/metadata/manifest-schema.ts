// The portable metadata manifest (`schema_version: registry-manifest/v1`): catalog, datasets, entities, offerings.
import { z } from 'zod';
import { accessRights, sensitivity, updateFrequency } from '../config/dataset-classification.ts';
import { isDateText } from '../store/coerce-cell.ts';
import {
  authority,
  baseUrl,
  dataService,
  form,
  iri,
  localizedText,
  publicService,
  safeId,
  url,
} from './manifest-service-schema.ts';

export const MANIFEST_SCHEMA_VERSION = 'registry-manifest/v1';

export const MANIFEST_FIELD_TYPES = [
  'string',
  'number',
  'integer',
  'boolean',
  'date',
  'timestamp',
  'code',
] as const;

const DATE_OR_TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/** A real day and clock time: outputs type it `xsd:date`/`xsd:dateTime`, where `2025-02-30` is ill-typed. */
function isCalendarValue(value: string): boolean {
  const match = DATE_OR_TIMESTAMP.exec(value);
  if (!match || !isDateText(match[1] as string)) return false;
  const [hour, minute, second, offsetHour, offsetMinute] = match.slice(2).map((part) => Number(part ?? 0));
  return (
    (hour as number) < 24 &&
    (minute as number) < 60 &&
    (second as number) < 60 &&
    (offsetHour as number) < 24 &&
    (offsetMinute as number) < 60
  );
}

/** A calendar date or an RFC 3339 timestamp; copied verbatim into outputs (never generated). */
const dateOrTimestamp = z
  .string()
  .refine(isCalendarValue, 'must be a real YYYY-MM-DD day or an RFC 3339 timestamp');

/** BCP 47 language tags: texts are tagged with the first (JSON-LD refuses `en_US`). */
const languageTag = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as en or pt-BR');

const field = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'field name must match ^[a-z][a-z0-9_]*$'),
  title: localizedText.optional(),
  description: localizedText.optional(),
  type: z.enum(MANIFEST_FIELD_TYPES),
  required: z.boolean().default(false),
  nullable: z.boolean().optional().describe('Defaults to the opposite of `required`.'),
  sensitive: z.boolean().optional(),
  codelist: safeId.optional(),
  concept_uri: iri.optional(),
  concepts: z.array(iri).default([]),
  unit: z.string().min(1).optional(),
  language: z.string().min(1).optional(),
});

const relationship = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  target_entity: z.string().min(1),
  cardinality: z.enum(['one', 'zero_or_one', 'many']),
  foreign_key: z.string().min(1).optional(),
  concept_uri: iri.optional(),
});

const entity = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'entity name must match ^[a-z][a-z0-9_]*$'),
  title: localizedText.optional(),
  description: localizedText.optional(),
  concept_uri: iri.optional(),
  identifiers: z.array(z.strictObject({ name: z.string().min(1), kind: z.enum(['primary']) })).default([]),
  fields: z.array(field).default([]),
  relationships: z.array(relationship).default([]),
});

const odrlConstraint = z.strictObject({
  left_operand: z.string().min(1),
  operator: z.string().min(1),
  right_operand: z.union([z.strictObject({ iri }), z.strictObject({ value: z.string() })]),
  datatype: z.string().optional(),
});

const odrlDuty = z.strictObject({
  action: z.string().min(1),
  target: iri.optional(),
  assignee: iri.optional(),
  constraints: z.array(odrlConstraint).default([]),
});

// Duties carry no duties of their own: one level covers ODRL offers as published here.
const odrlRule = odrlDuty.extend({ duties: z.array(odrlDuty).default([]) });

const datasetPolicy = z.strictObject({
  uid: iri.optional(),
  assigner: iri.optional(),
  profile: z.array(iri).default([]),
  permissions: z.array(odrlRule).default([]),
  prohibitions: z.array(odrlRule).default([]),
});

const evidenceOffering = z.strictObject({
  id: safeId,
  iri,
  title: localizedText,
  description: localizedText.optional(),
  evidence_type: safeId.describe('Id of a top-level `evidence_types` entry.'),
  issuing_authority: z.strictObject({
    id: safeId,
    iri: iri.optional(),
    name: z.string().min(1),
    country: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as FR'),
  }),
  jurisdiction: z
    .strictObject({
      country: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as FR'),
      region: z.string().min(1).nullable().default(null),
    })
    .optional()
    .describe('Defaults to the issuing authority country.'),
  level_of_assurance: z.string().min(1),
  entity: z.string().min(1),
  lookup_keys: z.array(z.string().min(1)).min(1),
  procedure_contexts: z.array(z.string().min(1)).default([]),
  access: z.strictObject({
    kind: z.string().min(1).describe('Always `verifier`: the relay never verifies.'),
    ruleset: z.string().min(1),
    endpoint_url: url.optional(),
    discovery_url: url.optional(),
    conforms_to: iri,
  }),
  policy: z.strictObject({ purpose: z.array(iri).default([]) }).default({ purpose: [] }),
});

const dataset = z.strictObject({
  id: safeId,
  iri: iri.optional(),
  title: localizedText,
  description: localizedText.optional(),
  owner: z.string().min(1).optional(),
  publisher: authority.omit({ id: true }).optional(),
  sensitivity,
  access_rights: accessRights,
  update_frequency: updateFrequency,
  conforms_to: z.array(iri).default([]),
  applicable_legislation: z
    .array(
      z.union([
        iri,
        z.strictObject({
          iri,
          type: z
            .string()
            .regex(/^[A-Z][A-Z0-9_]*$/, 'must be a code of the EU resource-type table, such as REG or DIR')
            .describe('Code of the EU resource-type authority table (REG, DIR, DEC, ...).'),
        }),
      ]),
    )
    .default([]),
  spatial_coverage: iri.optional(),
  status: iri.optional(),
  keywords: z.array(z.string().min(1)).default([]),
  themes: z.array(iri).default([]),
  license: z.string().min(1).optional(),
  issued: dateOrTimestamp.optional(),
  modified: dateOrTimestamp.optional(),
  policy: datasetPolicy.optional(),
  public_services: z
    .array(
      z.strictObject({ id: z.string().min(1), title: localizedText, description: localizedText.optional() }),
    )
    .default([]),
  entities: z.array(entity).default([]),
  evidence_offerings: z.array(evidenceOffering).default([]),
});

const codelist = z.strictObject({
  id: safeId,
  scheme_iri: iri,
  title: localizedText.optional(),
  description: localizedText.optional(),
  concepts: z
    .array(
      z.strictObject({
        code: z.string().min(1),
        iri: iri.optional(),
        label: localizedText.optional(),
        definition: localizedText.optional(),
      }),
    )
    .min(1),
});

const requirement = z.strictObject({
  id: safeId,
  iri,
  title: localizedText,
  description: localizedText.optional(),
  rdf_type: iri.optional(),
  procedure_contexts: z.array(z.string().min(1)).default([]),
  evidence_type_lists: z
    .array(
      z.strictObject({
        id: safeId,
        title: localizedText.optional(),
        description: localizedText.optional(),
        evidence_types: z.array(safeId).min(1),
      }),
    )
    .default([]),
});

const evidenceType = z.strictObject({
  id: safeId,
  iri,
  title: localizedText,
  description: localizedText.optional(),
  proves: z.array(safeId).default([]),
  information_concepts: z.array(iri).default([]),
});

const profile = z.strictObject({
  id: safeId,
  version: z.string().min(1),
  title: localizedText.optional(),
  description: localizedText.optional(),
  conforms_to: iri.optional(),
});

export const manifestSchema = z.strictObject({
  schema_version: z.literal(MANIFEST_SCHEMA_VERSION),
  catalog: z.strictObject({
    id: safeId,
    base_url: baseUrl.describe('Public base URL the published files and relay links resolve against.'),
    title: localizedText,
    description: localizedText.optional(),
    publisher: authority.omit({ id: true }),
    participant_id: z.string().min(1).optional(),
    conforms_to: z.array(iri).default([]),
    languages: z.array(languageTag).default([]),
    spatial_coverage: iri.optional(),
    issued: dateOrTimestamp.optional(),
    modified: dateOrTimestamp.optional(),
    standards: z
      .strictObject({
        dcat: z.boolean().default(true),
        shacl: z.boolean().default(true),
        json_schema: z.boolean().default(true),
      })
      .default({ dcat: true, shacl: true, json_schema: true }),
    application_profiles: z.array(profile.pick({ id: true, version: true })).default([]),
  }),
  vocabularies: z.record(z.string().regex(/^[a-z][a-z0-9_-]*$/), url).default({}),
  profiles: z.array(profile).default([]),
  authorities: z.array(authority).default([]),
  requirements: z.array(requirement).default([]),
  evidence_types: z.array(evidenceType).default([]),
  public_services: z.array(publicService).default([]),
  data_services: z.array(dataService).default([]),
  forms: z.array(form).default([]),
  datasets: z.array(dataset).default([]),
  codelists: z.array(codelist).default([]),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestDataset = Manifest['datasets'][number];
export type ManifestEntity = ManifestDataset['entities'][number];
export type ManifestField = ManifestEntity['fields'][number];
export type ManifestOffering = ManifestDataset['evidence_offerings'][number];
export type ManifestPolicy = NonNullable<ManifestDataset['policy']>;
export type ManifestOdrlRule = ManifestPolicy['permissions'][number];
export type ManifestFieldType = (typeof MANIFEST_FIELD_TYPES)[number];

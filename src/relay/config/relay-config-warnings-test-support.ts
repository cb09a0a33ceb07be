// The config the relay config warnings tests vary: persons that belong to households, each entity guarded by its
// own `api.required_filters`, and one aggregate over persons.
import { fingerprintOf } from '../../platform/auth/api-key.ts';
import { loadRelayConfigText } from './load-relay-config.ts';

const ENV = {
  READER_HASH: fingerprintOf('reader-key'),
  AUDIT_SECRET: 'audit-secret-for-warning-tests-0123456',
};

export interface WarningCase {
  /** The `disclosure_control` mapping of the aggregate, as YAML flow text. */
  readonly control?: string;
  /** The dimension's field. */
  readonly field?: string;
  /** Measures added after the row count, each a YAML flow mapping. */
  readonly measures?: readonly string[];
  /** The `api.required_filters` of the person entity. */
  readonly personRequires?: readonly string[];
  /** The `api.required_filters` of the household entity. */
  readonly householdRequires?: readonly string[];
  /** Fields the person entity serves besides its table's columns, each a YAML flow mapping. */
  readonly personAliases?: readonly string[];
  /** Relationships of the person entity; a belongs_to household by default. */
  readonly personRelationships?: readonly string[];
  /** Relationships of the household entity; none by default. */
  readonly householdRelationships?: readonly string[];
  /** The type of `household_id` in both tables. */
  readonly householdIdType?: 'string' | 'integer';
  readonly noAggregates?: boolean;
}

const BELONGS_TO_HOUSEHOLD =
  '{ name: household, kind: belongs_to, target: household, foreign_key: household_id }';

function configText(c: WarningCase): string {
  const personRequires = c.personRequires ?? ['national_id'];
  const householdRequires = c.householdRequires ?? ['household_id'];
  const idType = c.householdIdType ?? 'string';
  const filters = (fields: readonly string[]) =>
    `{ required_filters: [${fields.join(', ')}], allowed_filters: [${fields.map((f) => `{ field: ${f}, ops: [eq] }`).join(', ')}] }`;
  const list = (items: readonly string[]) => `[${items.join(', ')}]`;
  const personFields =
    c.personAliases === undefined
      ? ''
      : `        fields: ${list(['{ name: national_id }', '{ name: household_id }', '{ name: district }', ...c.personAliases])}\n`;
  const aggregates = c.noAggregates
    ? ''
    : `    aggregates:
      - id: by_person
        source_entity: person
        dimensions:
          - { id: who, field: ${c.field ?? 'national_id'} }
          - { id: area, field: district }
        indicators: ${list(['{ id: people, function: count }', ...(c.measures ?? [])])}
        disclosure_control: ${c.control ?? '{ min_cell_size: 1 }'}
`;
  return `server: { bind: 127.0.0.1:4242 }
catalog: { title: T, base_url: https://relay.example.org, publisher: P }
auth:
  mode: api_key
  api_keys:
    - { id: reader, fingerprint: { provider: env, name: READER_HASH }, scopes: [people:rows, people:aggregate] }
audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: people
    title: People
    tables:
      - id: persons
        source: { type: file, path: persons.csv }
        primary_key: national_id
        schema:
          fields:
            - { name: national_id, type: string, nullable: false }
            - { name: household_id, type: ${idType} }
            - { name: district, type: string }
      - id: households
        source: { type: file, path: households.csv }
        primary_key: household_id
        schema:
          fields:
            - { name: household_id, type: ${idType}, nullable: false }
            - { name: district, type: string }
    entities:
      - name: person
        table: persons
${personFields}        api: ${filters(personRequires)}
        relationships: ${list(c.personRelationships ?? [BELONGS_TO_HOUSEHOLD])}
      - name: household
        table: households
        api: ${filters(householdRequires)}
        relationships: ${list(c.householdRelationships ?? [])}
${aggregates}`;
}

/** The warnings the case loads with; a case that does not load throws. */
export const warningsOf = (c: WarningCase) => loadRelayConfigText(configText(c), ENV, '/tmp').warnings;

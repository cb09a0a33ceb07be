// What a claim reads: the request inputs it declares and the source bindings that read a relay.
import { z } from 'zod';
import { enumWithHints } from '../../platform/config/enum-with-hints.ts';
import { scopeToken } from '../../platform/config/scope-token.ts';
import { key } from './config-key.ts';
import { RELAY_NAME_MAX, relayField, relayFilterField } from './relay-field-name.ts';

export const VALUE_TYPES = [
  'boolean',
  'integer',
  'number',
  'string',
  'date',
  'object',
  'array',
  'any',
] as const;

const named = (ours: string) => `is named \`${ours}\` here`;
/** A claim value or input type; the reference's other spellings are refused with the name to write. */
export const valueType = enumWithHints(VALUE_TYPES, {
  bool: named('boolean'),
  int: named('integer'),
  float: named('number'),
  double: named('number'),
  list: named('array'),
  unknown: named('any'),
  datetime: `${named('string')} (a date-time is checked as a string)`,
  'date-time': `${named('string')} (a date-time is checked as a string)`,
  uri: `${named('string')} (a URI is checked as a string)`,
  null: 'is not a claim type here: use `any`',
});

/** At most what a request may carry: 1 id, 20 identifiers and 32 attributes. */
export const MAX_CLAIM_INPUTS = 64;
/** Generous: every field of the widest relay entity, far past what one `fields=` query holds. */
const MAX_BINDING_FIELDS = 1000;

const REQUEST_PATH = /^target\.(id|identifiers\.[A-Za-z0-9_.:-]+|attributes\.[A-Za-z0-9_]+)$/;
// As a request is checked (parse-evaluation-request.ts): a longer name could never be sent.
const MAX_SCHEME = 128;
const MAX_ATTRIBUTE = 64;

function fitsRequest(path: string): boolean {
  if (!REQUEST_PATH.test(path)) return true; // said by the pattern
  const [, kind, name = ''] = /^target\.(identifiers|attributes)\.(.*)$/.exec(path) ?? [];
  if (kind === 'identifiers') return name.length <= MAX_SCHEME;
  return kind !== 'attributes' || name.length <= MAX_ATTRIBUTE;
}

const requestPath = z
  .string()
  .regex(
    REQUEST_PATH,
    'must be target.id, target.identifiers.<scheme> or target.attributes.<name> (requester, relationship and dependent `sources.` inputs are not supported)',
  )
  .refine(
    fitsRequest,
    `an identifier scheme is at most ${MAX_SCHEME} characters and an attribute name at most ${MAX_ATTRIBUTE}, as a request sends them`,
  );

/**
 * A request input the claim reads and its JSON type (contract: `inputs[{name, type}]`). A target attribute of
 * another type is refused before any read (400 `request.invalid`), where a rule would otherwise fail on it (500).
 */
export const claimInput = z
  .strictObject({
    name: requestPath,
    type: valueType,
  })
  .refine(
    (input) => !/^target\.(id$|identifiers\.)/.test(input.name) || ['string', 'any'].includes(input.type),
    {
      message: 'an id or identifier is always a string',
      path: ['type'],
    },
  );

const lookup = z.strictObject({
  input: requestPath,
  field: relayFilterField.describe('Relay filter field the input is matched against (equality).'),
  // Contract keys with the only values there are: a config that spells them out loads.
  op: z.literal('eq').optional().describe('Only `eq`: the lookup is an equality match.'),
  cardinality: z.literal('one').optional().describe('Only `one`: a claim rests on exactly one record.'),
});

/**
 * A name the records path carries as one segment: `.` and `..` would be read as dot segments by a relay or proxy
 * that normalises paths (encoded or not), so the read would go to another resource.
 */
const pathSegment = (what: string) =>
  z
    .string()
    .min(1)
    .max(RELAY_NAME_MAX)
    .refine(
      (name) => name !== '.' && name !== '..',
      `a ${what} named \`.\` or \`..\` would change the path read`,
    );

export const sourceBinding = z.strictObject({
  connector: enumWithHints(['registry_data_api'], {
    dci: 'the SP-DCI connector is not supported: a binding reads a relay (`registry_data_api`)',
    source_adapter_sidecar:
      'the source-adapter sidecar is not supported: a binding reads a relay (`registry_data_api`)',
  }),
  connection: key('connection id').describe('A key of `evidence.source_connections`.'),
  required_scope: scopeToken.optional().describe('Caller scope needed to evaluate (and see) the claim.'),
  dataset: pathSegment('dataset'),
  entity: pathSegment('entity'),
  lookup,
  fields: z
    .array(relayField, {
      error: 'must be a list of field names (a mapping of aliases to fields is not supported)',
    })
    .max(MAX_BINDING_FIELDS)
    .default([])
    .describe('Fields read from the record (`fields=` upstream).'),
});

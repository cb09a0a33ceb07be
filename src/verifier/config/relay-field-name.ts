// Relay names a source binding reads by: its lookup field and the fields it projects, and their length limit.
import { z } from 'zod';

/** The longest dataset id, entity name or field name a relay declares: a longer one names nothing there. */
export const RELAY_NAME_MAX = 128;

/**
 * A relay field name, as it travels in the records query: a `.` would be read as a filter operator
 * (`birth_date.gte=`), a `,` would split the `fields=a,b` list in two, and no relay names a field with a space.
 */
export const relayField = z
  .string()
  .min(1)
  .max(RELAY_NAME_MAX)
  .regex(/^[^.,\s]+$/, 'must be a relay field name: no `.`, `,` or spaces');

/** Parameters of the relay's records route: a lookup by one of them would set it instead (`limit=<value>`). */
const RECORDS_PARAMETERS = new Set(['limit', 'cursor', 'fields', 'expand']);

export const relayFilterField = relayField.refine(
  (field) => !RECORDS_PARAMETERS.has(field),
  'is a parameter of the relay records route (limit, cursor, fields, expand), not a field it filters by',
);

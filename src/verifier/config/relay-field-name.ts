// Relay field names a source binding reads by (its lookup field and the fields it projects).
import { z } from 'zod';

/**
 * A relay field name, as it travels in the records query: a `.` would be read as a filter operator
 * (`birth_date.gte=`), a `,` would split the `fields=a,b` list in two, and no relay names a field with a space.
 */
export const relayField = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^.,\s]+$/, 'must be a relay field name: no `.`, `,` or spaces');

/** Parameters of the relay's records route: a lookup by one of them would set it instead (`limit=<value>`). */
const RECORDS_PARAMETERS = new Set(['limit', 'cursor', 'fields', 'expand']);

export const relayFilterField = relayField.refine(
  (field) => !RECORDS_PARAMETERS.has(field),
  'is a parameter of the relay records route (limit, cursor, fields, expand), not a field it filters by',
);

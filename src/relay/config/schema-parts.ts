// Building blocks shared by the relay config schema files: ids and filter operators.
import { z } from 'zod';

export const ID_PATTERN = /^[a-z][a-z0-9_]*$/;
export const FILTER_OPS = ['eq', 'in', 'gte', 'lte', 'between'] as const;
/** Query parameters of a collection read that are not filters: no public field may be named so. */
export const RESERVED_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'limit',
  'cursor',
  'fields',
  'expand',
]);

export const id = (what: string) => z.string().regex(ID_PATTERN, `${what} must match ^[a-z][a-z0-9_]*$`);

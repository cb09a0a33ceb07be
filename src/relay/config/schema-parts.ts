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

/**
 * Ids and names travel in paths, scopes, metrics labels, audit records and cursors: as long as a verifier may name
 * them (and as a claim id), so a name either side accepts is one the other does too.
 */
export const ID_MAX = 128;
export const id = (what: string) =>
  z.string().max(ID_MAX).regex(ID_PATTERN, `${what} must match ^[a-z][a-z0-9_]*$`);

/**
 * Upper lengths of the free text a config writes into metadata pages, logs and posture: generous for any real value,
 * so only a value pasted by mistake (a file's content, a runaway template) is refused at load.
 */
export const TEXT_MAX = {
  title: 512,
  description: 4096,
  name: 512,
  iri: 2048,
  path: 4096,
  short: 256,
} as const;
export const text = (kind: keyof typeof TEXT_MAX) => z.string().max(TEXT_MAX[kind]);

/** Characters no IRI may hold (RFC 3987): JSON-LD reads an `@id` with one as relative and drops it. */
export const IRI_FORBIDDEN = /[\s<>"{}|\\^`\p{Cc}]/u;

/** `.refine(...iriSafeUrl)`: a URL that IRIs are built on (a base URL, a vocabulary) holds none of `IRI_FORBIDDEN`. */
export const iriSafeUrl = [
  (url: string) => !IRI_FORBIDDEN.test(url),
  'must not hold spaces, quotes or <>{}|\\^` (percent-encode them)',
] as const;

/**
 * An IRI the metadata publishes (absolute or `prefix:term`): one holding a space, a quote or `<>` would be dropped by
 * every JSON-LD reader of the DCAT-AP and SHACL documents, with each statement naming it, so it is refused at load.
 */
export const iriText = () =>
  text('iri').refine(
    (value) => !IRI_FORBIDDEN.test(value),
    'is not an IRI: percent-encode spaces, quotes and <>{}|\\^`',
  );

/** As long as a scope an API key or an OIDC `scope_map` may grant: a longer one required could never be held. */
export const SCOPE_MAX = 256;
export const scopeName = () => z.string().max(SCOPE_MAX);

/**
 * Most entries of a config list, generous for any real deployment, so only a list generated or pasted by mistake is
 * refused at load: `fields` for the columns of a table or entity and the lists of names that must each match one
 * (more than a PostgreSQL table or a spreadsheet sheet has), `items` for every other list of declarations.
 */
export const COUNT_MAX = { fields: 10_000, items: 1000 } as const;
export const list = <T extends z.ZodType>(item: T, kind: keyof typeof COUNT_MAX = 'items') =>
  z.array(item).max(COUNT_MAX[kind]);

/** A filter's operators: each at most once, so no more than there are. */
export const filterOps = () => z.array(z.enum(FILTER_OPS)).min(1).max(FILTER_OPS.length);

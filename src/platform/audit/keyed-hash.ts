// Keyed hashes that let audit records correlate sensitive values and ids without revealing them (§2.12).
import { createHmac } from 'node:crypto';
import { jsonString } from './json-text.ts';

export type RedactedQueryParam = { op: string; value_hash?: string };

export interface RedactQueryOptions {
  /** Whether a field's values are sensitive (hashed) rather than dropped. */
  readonly sensitive: (field: string) => boolean;
  readonly secret: Buffer;
  /** Hash domain prefix, e.g. `query:<dataset>:<entity>`; the field name is appended to it. */
  readonly domain: string;
  /** Parameter names recorded as `{op: 'param'}`; defaults to `limit`, `cursor`, `fields`, `expand`. */
  readonly reserved?: ReadonlySet<string>;
  /**
   * The names the service knows, as a field and its operators. A name is the client's text: `national_id%3DNID`
   * arrives as the name `national_id=NID`, and a suffix can be anything. Given, a name that is neither reserved nor
   * a known field with a known operator is written as a keyed hash of itself, with op `unknown` (or `redacted`).
   */
  readonly known?: { readonly field: (field: string) => boolean; readonly ops: ReadonlySet<string> };
}

const DEFAULT_RESERVED: ReadonlySet<string> = new Set(['limit', 'cursor', 'fields', 'expand']);
// Substrings of names that probably carry credentials; `api_key` and `access_token` are covered by these.
const SECRET_NAME = /token|key|secret|password/i;
// Domains of unknown names and of their values (one by one, then the rest together). A field's values hash in
// `<domain>:<field>`, and a field may be called `name` or `unknown`: `#` is in no field name, so these never share
// a domain with a field's values.
const NAME_DOMAIN = '#name';
const UNKNOWN_VALUE_DOMAIN = '#unknown';
const REST_NAMES_DOMAIN = '#names';
const REST_VALUES_DOMAIN = '#values';

/** `hmac-sha256:<hex>` over `domain:value`, so equal values in different domains do not correlate. */
export function keyedHash(secret: Buffer, domain: string, value: string): string {
  return `hmac-sha256:${createHmac('sha256', secret).update(`${domain}:${value}`, 'utf8').digest('hex')}`;
}

/**
 * Unknown names written one entry each; the rest of them share one entry. A URL of thousands of short names would
 * otherwise make a record some fifty times its own size (two keyed hashes per name) and cost as many hashes.
 */
export const MAX_UNKNOWN_ENTRIES = 32;

/**
 * Audit form of a query string, as JSON text: `{name: {op}}`, plus `value_hash` for sensitive fields. Raw values
 * are never kept. `district.in` is field `district`, op `in`; a name without a suffix is op `eq`. Unknown names
 * past the first MAX_UNKNOWN_ENTRIES are written as one entry: a keyed hash of their names (as a JSON array), op
 * `unknown`, and a keyed hash of their values, those of secret-looking names left out.
 */
export function redactedQueryJson(
  params: Readonly<Record<string, string | readonly string[] | undefined>>,
  options: RedactQueryOptions,
): string {
  let out = '{';
  let unknown = 0;
  // Made only for a query that overflows: this runs for every audited request.
  let rest: { names: string[]; values: (string | readonly string[])[] } | undefined;
  for (const name in params) {
    const value = params[name];
    if (value === undefined) continue;
    const overflow = unknown >= MAX_UNKNOWN_ENTRIES;
    const entry = redactQueryParam(name, value, options, !overflow);
    if (!entry.known) {
      if (overflow) {
        if (rest === undefined) rest = { names: [], values: [] };
        rest.names.push(name);
        if (entry.op !== 'redacted') rest.values.push(value);
        continue;
      }
      unknown++;
    }
    const key = entry.known
      ? jsonString(name)
      : `"${keyedHash(options.secret, `${options.domain}:${NAME_DOMAIN}`, name)}"`;
    out += `${out === '{' ? '' : ','}${key}:{"op":${jsonString(entry.op)}`;
    out += entry.value_hash === undefined ? '}' : `,"value_hash":"${entry.value_hash}"}`;
  }
  if (rest !== undefined) {
    // A domain of its own: no single name, whatever its text, hashes to this key.
    const key = keyedHash(
      options.secret,
      `${options.domain}:${REST_NAMES_DOMAIN}`,
      JSON.stringify(rest.names),
    );
    out += `${out === '{' ? '' : ','}"${key}":{"op":"unknown"`;
    out +=
      rest.values.length === 0
        ? '}'
        : `,"value_hash":"${keyedHash(options.secret, `${options.domain}:${REST_VALUES_DOMAIN}`, JSON.stringify(rest.values))}"}`;
  }
  return `${out}}`;
}

function redactQueryParam(
  name: string,
  value: string | readonly string[],
  options: RedactQueryOptions,
  hashUnknown: boolean,
): RedactedQueryParam & { known: boolean } {
  if ((options.reserved ?? DEFAULT_RESERVED).has(name)) return { op: 'param', known: true };
  // A field may itself hold a dot (an aggregate's `household.district`): the whole name first, as filters read it.
  const whole = options.known?.field(name) === true;
  const dot = whole ? -1 : name.lastIndexOf('.');
  const field = dot > 0 ? name.slice(0, dot) : name;
  const op = dot > 0 ? name.slice(dot + 1) : 'eq';
  const known = options.known === undefined || (options.known.field(field) && options.known.ops.has(op));
  if (SECRET_NAME.test(name)) return { op: 'redacted', known };
  if (!known) {
    if (!hashUnknown) return { op: 'unknown', known };
    return {
      op: 'unknown',
      value_hash: keyedHash(options.secret, `${options.domain}:${UNKNOWN_VALUE_DOMAIN}`, joinValues(value)),
      known,
    };
  }
  return options.sensitive(field)
    ? { op, value_hash: keyedHash(options.secret, `${options.domain}:${field}`, joinValues(value)), known }
    : { op, known };
}

/** A repeated parameter hashes as a JSON array so `a=x,y` and `a=x&a=y` stay distinguishable. */
function joinValues(value: string | readonly string[]): string {
  if (typeof value === 'string') return value;
  return value.length === 1 ? (value[0] as string) : JSON.stringify(value);
}

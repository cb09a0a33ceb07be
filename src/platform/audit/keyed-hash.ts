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

/** `hmac-sha256:<hex>` over `domain:value`, so equal values in different domains do not correlate. */
export function keyedHash(secret: Buffer, domain: string, value: string): string {
  return `hmac-sha256:${createHmac('sha256', secret).update(`${domain}:${value}`, 'utf8').digest('hex')}`;
}

/**
 * Audit form of a query string, as JSON text: `{name: {op}}`, plus `value_hash` for sensitive fields. Raw values
 * are never kept. `district.in` is field `district`, op `in`; a name without a suffix is op `eq`.
 */
export function redactedQueryJson(
  params: Readonly<Record<string, string | readonly string[] | undefined>>,
  options: RedactQueryOptions,
): string {
  let out = '{';
  for (const name in params) {
    const value = params[name];
    if (value === undefined) continue;
    const entry = redactQueryParam(name, value, options);
    const key = entry.known
      ? jsonString(name)
      : `"${keyedHash(options.secret, `${options.domain}:name`, name)}"`;
    out += `${out === '{' ? '' : ','}${key}:{"op":${jsonString(entry.op)}`;
    out += entry.value_hash === undefined ? '}' : `,"value_hash":"${entry.value_hash}"}`;
  }
  return `${out}}`;
}

function redactQueryParam(
  name: string,
  value: string | readonly string[],
  options: RedactQueryOptions,
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
    return {
      op: 'unknown',
      value_hash: keyedHash(options.secret, `${options.domain}:unknown`, joinValues(value)),
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

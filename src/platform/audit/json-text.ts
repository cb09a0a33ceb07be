// JSON text written piece by piece, byte-identical to JSON.stringify: audit records are built as text on the
// request path, which costs a fraction of building an object and serialising it.

// Printable ASCII except `"` and `\`: such a string is its own JSON body.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `JSON.stringify(value)` for a string. */
export function jsonString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** `JSON.stringify(value)` for a string or null (undefined counts as null, as in a record field). */
export function jsonNullableString(value: string | null | undefined): string {
  return value === null || value === undefined ? 'null' : jsonString(value);
}

/** `JSON.stringify(value)` for a finite number or null. */
export function jsonNullableNumber(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? 'null' : String(value);
}

/** `JSON.stringify(values)` for an array of strings. */
export function jsonStringArray(values: readonly string[]): string {
  let out = '[';
  for (let i = 0; i < values.length; i++) out += (i === 0 ? '' : ',') + jsonString(values[i] as string);
  return `${out}]`;
}

/**
 * `new Date(ms).toISOString()`, remembered for the last millisecond asked: every request of the same
 * millisecond stamps its audit record with the same text.
 */
export function isoTimestamp(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
let lastMs = Number.NaN;
let lastIso = '';

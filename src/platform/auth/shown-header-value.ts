// A token header value as a problem detail may quote it: the value is attacker-chosen.

const MAX_SHOWN = 40;

/**
 * Strings, numbers, booleans and null quoted and shortened; a list or an object only named by its kind. Serialising
 * one would recurse once per nesting level, and a header nested thousands deep would overflow the stack (a 500).
 */
export function shownHeaderValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object' && value !== null) return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

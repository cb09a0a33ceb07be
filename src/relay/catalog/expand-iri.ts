// Expands compact IRIs (`prefix:rest`) with the config `vocabularies`; absolute IRIs pass through.
const ABSOLUTE = /^(https?:\/\/|urn:)/i;

export function expandIri(
  value: string | undefined,
  vocabularies: Readonly<Record<string, string>>,
): string | undefined {
  if (value === undefined || ABSOLUTE.test(value)) return value;
  const colon = value.indexOf(':');
  if (colon <= 0) return value;
  const base = vocabularies[value.slice(0, colon)];
  return base === undefined ? value : base + value.slice(colon + 1);
}

/** `undefined` when the value is absolute or uses a known prefix; otherwise the unknown prefix. */
export function unknownPrefix(
  value: string,
  vocabularies: Readonly<Record<string, string>>,
): string | undefined {
  if (ABSOLUTE.test(value)) return undefined;
  const colon = value.indexOf(':');
  if (colon <= 0) return '(none)';
  const prefix = value.slice(0, colon);
  return prefix in vocabularies ? undefined : prefix;
}

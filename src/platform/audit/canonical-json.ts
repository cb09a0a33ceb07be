// Canonical JSON for hashing: sorted object keys, no whitespace, same value rules as JSON.stringify.
// The verifier re-parses each line and re-serialises it here, so both sides must agree byte for byte.

export function canonicalJson(value: unknown): string {
  const out = serialize(value, false);
  if (out === undefined) throw new TypeError('canonicalJson: value has no JSON representation');
  return out;
}

// String concatenation rather than arrays and join: this runs once per audited request.
function serialize(value: unknown, inArray: boolean): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      // JSON.stringify prints non-finite numbers as null; keep that so a parsed line re-hashes identically.
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('canonicalJson: bigint is not a JSON value');
    case 'undefined':
    case 'function':
    case 'symbol':
      return inArray ? 'null' : undefined;
    default:
      return serializeObject(value as object);
  }
}

function serializeObject(value: object): string | undefined {
  const withToJson = value as { toJSON?: unknown };
  if (typeof withToJson.toJSON === 'function') {
    return serialize((withToJson.toJSON as () => unknown).call(value), false);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += serialize(value[i], true) ?? 'null';
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (const key of keys) {
    const item = serialize(record[key], false);
    // Like JSON.stringify, properties without a JSON value are left out rather than written as null.
    if (item === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${item}`;
  }
  return `${out}}`;
}

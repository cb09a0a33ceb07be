// The inputs of a CEL task as the JSON text a worker reads.

/**
 * The bindings as the JSON text a worker reads, with the JSON size of the inputs that come from sources (records,
 * sub-claim values): `max_binding_json_bytes` bounds them. The request's own target (`ctx`) is bounded by the
 * request's limits instead, so that a large but valid request is never a rule failure. Undefined when the inputs
 * cannot be serialised (nested beyond the stack).
 */
export function serialise(
  bindings: Readonly<Record<string, unknown>>,
): { json: string; sourced: number } | undefined {
  const members: string[] = [];
  let sourced = 0;
  try {
    for (const key in bindings) {
      const json = JSON.stringify(bindings[key]);
      if (json === undefined) continue;
      if (key !== 'ctx') sourced += Buffer.byteLength(json, 'utf8');
      members.push(`${JSON.stringify(key)}:${json}`);
    }
  } catch {
    return undefined;
  }
  return { json: `{${members.join(',')}}`, sourced };
}

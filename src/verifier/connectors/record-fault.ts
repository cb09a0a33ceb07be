// What makes a record of a relay's answer unreadable, whatever the claim that reads it.

/**
 * How deep arrays and objects may nest inside a record: far beyond any registry record, and shallow enough for
 * everything downstream (the rule evaluator serialises bindings recursively) to handle it.
 */
const MAX_ROW_DEPTH = 32;

// Unpaired in `u` mode: a pair is one code point, outside this range.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * What makes a record unreadable, or undefined: nesting deeper than `MAX_ROW_DEPTH`, a key or text holding a lone
 * surrogate (JSON can escape one, `"\ud800"`; it is no character, and would pass on to results and CCCEV as such),
 * a key named `__proto__` (JSON.parse keeps it as a member, but a reader that copies members by assignment, the
 * `jsonld` expansion of a CCCEV answer among them, drops it or takes it as the object's prototype: the value stated
 * would not be the one the source held), or a number beyond a double (`1e400`). Walked with an explicit stack: a
 * recursive check could itself overflow on the rows it is meant to refuse.
 */
export function rowFault(row: object): string | undefined {
  const containers: object[] = [row];
  const depths: number[] = [0];
  for (let container = containers.pop(); container !== undefined; container = containers.pop()) {
    const depth = (depths.pop() as number) + 1;
    for (const key of Object.keys(container)) {
      const value = (container as Record<string, unknown>)[key];
      if (LONE_SURROGATE.test(key)) return 'holds a lone surrogate';
      if (key === '__proto__') return 'holds a `__proto__` key';
      if (typeof value === 'string') {
        if (LONE_SURROGATE.test(value)) return 'holds a lone surrogate';
        continue;
      }
      // `1e400` parses as Infinity, which JSON (a result, a rule's input) then writes as null.
      if (typeof value === 'number' && !Number.isFinite(value)) return 'holds a number beyond a double';
      if (value === null || typeof value !== 'object') continue;
      if (depth > MAX_ROW_DEPTH) return `nests deeper than ${MAX_ROW_DEPTH} levels`;
      containers.push(value);
      depths.push(depth);
    }
  }
  return undefined;
}

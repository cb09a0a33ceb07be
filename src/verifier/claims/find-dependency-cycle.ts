// Finds a `depends_on` cycle among claims (depth-first search); the cycle is returned as a path of claim ids.
export function findDependencyCycle(
  dependencies: ReadonlyMap<string, readonly string[]>,
): readonly string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];

  const visit = (id: string): readonly string[] | undefined => {
    const seen = state.get(id);
    if (seen === 'done') return undefined;
    if (seen === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const next of dependencies.get(id) ?? []) {
      if (!dependencies.has(next)) continue;
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };

  for (const id of [...dependencies.keys()].sort()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}

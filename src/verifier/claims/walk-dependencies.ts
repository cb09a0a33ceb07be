// The `depends_on` graph among claims, walked with an explicit stack: a config may chain thousands of claims, more
// than the call stack holds, and it must be refused with a config error rather than crash the load.

/** Sub-claims nest at most this deep (`a -> b` is one level): a deeper chain does not load. */
export const MAX_DEPENDENCY_DEPTH = 32;

export interface DependencyWalk {
  /** Every claim once, after the dependencies it reaches without closing a cycle. */
  readonly order: readonly string[];
  /** The first `depends_on` cycle met (claims visited in sorted id order), as a path of ids: `a -> b -> a`. */
  readonly cycle: readonly string[] | undefined;
}

/** Depth-first over the claims in sorted id order; a dependency that is not a claim is left out. */
export function walkDependencies(dependencies: ReadonlyMap<string, readonly string[]>): DependencyWalk {
  const state = new Map<string, 'visiting' | 'done'>();
  const order: string[] = [];
  let cycle: string[] | undefined;
  for (const root of [...dependencies.keys()].sort()) {
    if (state.has(root)) continue;
    // The path from the root, each claim with the index of its next dependency to visit.
    const path: { id: string; next: number }[] = [{ id: root, next: 0 }];
    state.set(root, 'visiting');
    while (path.length > 0) {
      const top = path[path.length - 1] as { id: string; next: number };
      const next = (dependencies.get(top.id) ?? [])[top.next++];
      if (next === undefined) {
        path.pop();
        state.set(top.id, 'done');
        order.push(top.id);
      } else if (dependencies.has(next)) {
        const seen = state.get(next);
        if (seen === undefined) {
          state.set(next, 'visiting');
          path.push({ id: next, next: 0 });
        } else if (seen === 'visiting' && cycle === undefined) {
          const ids = path.map((step) => step.id);
          cycle = [...ids.slice(ids.indexOf(next)), next];
        }
      }
    }
  }
  return { order, cycle };
}

/**
 * The longest `depends_on` chain below each claim, in levels (0 for a claim without dependencies), with the next
 * claim along it. For a graph without cycles (`order` from `walkDependencies`).
 */
export function dependencyDepths(
  dependencies: ReadonlyMap<string, readonly string[]>,
  order: readonly string[],
): ReadonlyMap<string, { readonly depth: number; readonly via: string | undefined }> {
  const depths = new Map<string, { depth: number; via: string | undefined }>();
  for (const id of order) {
    let deepest: { depth: number; via: string | undefined } = { depth: 0, via: undefined };
    for (const dependency of dependencies.get(id) ?? []) {
      const below = depths.get(dependency);
      if (below !== undefined && below.depth + 1 > deepest.depth) {
        deepest = { depth: below.depth + 1, via: dependency };
      }
    }
    depths.set(id, deepest);
  }
  return depths;
}

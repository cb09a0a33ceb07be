// The `depends_on` graph among claims, walked with an explicit stack: a config may chain thousands of claims, more
// than the call stack holds, and it must be refused with a config error rather than crash the load.

/** Sub-claims nest at most this deep (`a -> b` is one level): a deeper chain does not load. */
export const MAX_DEPENDENCY_DEPTH = 32;

export interface DependencyWalk {
  /** Every claim once, after the dependencies it reaches without closing a cycle. */
  readonly order: readonly string[];
}

/** Depth-first over the claims in sorted id order; a dependency that is not a claim is left out. */
export function walkDependencies(dependencies: ReadonlyMap<string, readonly string[]>): DependencyWalk {
  const seen = new Set<string>();
  const order: string[] = [];
  for (const root of [...dependencies.keys()].sort()) {
    if (seen.has(root)) continue;
    // The path from the root, each claim with the index of its next dependency to visit.
    const path: { id: string; next: number }[] = [{ id: root, next: 0 }];
    seen.add(root);
    while (path.length > 0) {
      const top = path[path.length - 1] as { id: string; next: number };
      const next = (dependencies.get(top.id) ?? [])[top.next++];
      if (next === undefined) {
        path.pop();
        order.push(top.id);
      } else if (dependencies.has(next) && !seen.has(next)) {
        // A claim already on the path closes a cycle: dependencyCycles reports it.
        seen.add(next);
        path.push({ id: next, next: 0 });
      }
    }
  }
  return { order };
}

/**
 * One cycle for each tangle of claims that depend on one another (a strongly connected component, or a claim
 * depending on itself), so that a config with several is refused naming each at once. Each cycle starts at the
 * tangle's smallest id and is a shortest way back to it (`a -> b -> a`); cycles come in the order of those ids.
 */
export function dependencyCycles(dependencies: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  for (const members of tangles(dependencies)) {
    const start = [...members].sort()[0] as string;
    const cycle = shortestCycle(dependencies, members, start);
    if (cycle) cycles.push(cycle);
  }
  return cycles.sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1));
}

/** Strongly connected components of more than one claim, or of one depending on itself (Tarjan, no recursion). */
function tangles(dependencies: ReadonlyMap<string, readonly string[]>): Set<string>[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: Set<string>[] = [];
  const enter = (id: string) => {
    index.set(id, index.size);
    low.set(id, index.size - 1);
    stack.push(id);
    onStack.add(id);
  };
  for (const root of [...dependencies.keys()].sort()) {
    if (index.has(root)) continue;
    enter(root);
    const path: { id: string; next: number }[] = [{ id: root, next: 0 }];
    while (path.length > 0) {
      const top = path[path.length - 1] as { id: string; next: number };
      const next = (dependencies.get(top.id) ?? [])[top.next++];
      if (next === undefined) {
        path.pop();
        const parent = path[path.length - 1];
        if (parent) low.set(parent.id, Math.min(low.get(parent.id) as number, low.get(top.id) as number));
        if (low.get(top.id) !== index.get(top.id)) continue;
        const component = new Set<string>();
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.add(member);
        } while (member !== top.id);
        if (component.size > 1 || (dependencies.get(top.id) ?? []).includes(top.id)) found.push(component);
      } else if (!dependencies.has(next)) {
        // Not a claim: reported as an unknown dependency.
      } else if (!index.has(next)) {
        enter(next);
        path.push({ id: next, next: 0 });
      } else if (onStack.has(next)) {
        low.set(top.id, Math.min(low.get(top.id) as number, index.get(next) as number));
      }
    }
  }
  return found;
}

/** The shortest path from `start` back to itself through `members` (breadth first). */
function shortestCycle(
  dependencies: ReadonlyMap<string, readonly string[]>,
  members: ReadonlySet<string>,
  start: string,
): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i] as string;
    for (const next of dependencies.get(id) ?? []) {
      if (next === start) {
        // Back from the last claim to the first, then turned around.
        const back = [start];
        for (let at: string | undefined = id; at !== start && at !== undefined; at = previous.get(at)) {
          back.push(at);
        }
        back.push(start);
        return back.reverse();
      }
      if (members.has(next) && !previous.has(next)) {
        previous.set(next, id);
        queue.push(next);
      }
    }
  }
  return undefined;
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

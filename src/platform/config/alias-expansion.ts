// How many values a YAML document holds once its aliases are expanded, and whether an alias lies inside its own anchor.
import { type Alias, isAlias, isCollection, isPair, type Node } from 'yaml';

export type AliasExpansion =
  | { readonly ok: true; readonly added: number }
  | { readonly ok: false; readonly cycleAt: Alias };

/**
 * Counts the values aliases add to `root` when every alias is replaced by a copy of what it names (`targets`, resolved in document
 * order). `anchored` lists the nodes aliases name, in the order their first alias appears: each is measured before
 * any node aliasing it, so an alias reads its size from the memo instead of recursing down a chain of aliases.
 */
export function measureAliasExpansion(
  root: unknown,
  targets: ReadonlyMap<Alias, Node>,
  anchored: readonly Node[],
): AliasExpansion {
  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  let cycleAt: Alias | undefined;
  const size = (node: unknown): number => {
    if (cycleAt !== undefined) return 0;
    if (isAlias(node)) {
      const target = targets.get(node);
      if (target === undefined) return 1;
      // `&x [*x]` would expand without end (the parser builds a circular value).
      if (open.has(target)) {
        cycleAt = node;
        return 0;
      }
      return size(target);
    }
    if (!isCollection(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    open.add(node);
    let total = 1;
    for (const item of node.items) total += isPair(item) ? size(item.key) + size(item.value) : size(item);
    open.delete(node);
    sizes.set(node, total);
    return total;
  };
  for (const node of anchored) size(node);
  const values = size(root);
  return cycleAt === undefined ? { ok: true, added: values - written(root) } : { ok: false, cycleAt };
}

/** Values as written, an alias counting one. */
function written(node: unknown): number {
  if (!isCollection(node)) return 1;
  let total = 1;
  for (const item of node.items)
    total += isPair(item) ? written(item.key) + written(item.value) : written(item);
  return total;
}

// The source line of a config issue: the dotted path is walked back into the parsed YAML, so `ambit config check`
// can say where to look in a long file as well as what is wrong.
import { type Document, isAlias, isMap, isScalar, isSeq, type Node } from 'yaml';
import type { ConfigIssue } from './config-error.ts';

type Locator = (path: string) => number | undefined;

/** The locator of each parsed config, by its plain root value (the one the schema and checks are given). */
const locators = new WeakMap<object, Locator>();

export function rememberLines(root: unknown, document: Document, lineAt: (offset: number) => number): void {
  if (root === null || typeof root !== 'object') return;
  locators.set(root, (path) => {
    const node = deepestNode(document, path);
    const offset = node?.range?.[0];
    return offset === undefined ? undefined : lineAt(offset);
  });
}

/**
 * The issues with the line of their path added: of the key itself, else of the nearest mapping or list on the way
 * that exists (a missing key is reported at its parent). Paths outside the file (`manifest.*`, `line N`) get none.
 */
export function withLines(root: unknown, issues: readonly ConfigIssue[]): ConfigIssue[] {
  const locate = root !== null && typeof root === 'object' ? locators.get(root) : undefined;
  return issues.map((issue) => {
    if (locate === undefined || issue.line !== undefined || issue.path === '') return issue;
    const line = locate(issue.path);
    return line === undefined ? issue : { ...issue, line };
  });
}

/** The key node (or list item) the path ends at, or the deepest one it reaches; undefined when not even the first. */
function deepestNode(document: Document, path: string): Node | undefined {
  let current: unknown = document.contents;
  let found: Node | undefined;
  for (const segment of path.split('.')) {
    if (isAlias(current)) current = current.resolve(document);
    if (isMap(current)) {
      const pair = current.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
      if (pair === undefined) break;
      found = pair.key as Node;
      current = pair.value;
    } else if (isSeq(current) && /^\d+$/.test(segment)) {
      const item = current.items[Number(segment)];
      if (item === undefined) break;
      found = item as Node;
      current = item;
    } else {
      break;
    }
  }
  return found;
}

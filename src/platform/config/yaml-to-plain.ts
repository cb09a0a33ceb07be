// Turns a parsed YAML document into plain values; alias problems are reported without the alias name.
import { type Document, isAlias, isCollection, type Node, visit } from 'yaml';

/** Aliases may expand to at most this many nodes: more is a resource exhaustion attempt (an alias bomb). */
const MAX_ALIAS_COUNT = 100;

/**
 * Aliases a document may hold. The yaml library resolves each alias by looking back over the anchors and aliases
 * before it, so tens of thousands of them, each harmless, would take minutes.
 */
export const MAX_ALIASES = 1000;

/**
 * Collections a document may nest inside one another. A configuration or manifest needs about ten; thousands would
 * exhaust the stack of whatever walks the values afterwards.
 */
export const MAX_NESTING = 64;

export const TOO_DEEP = `collections nest more than ${MAX_NESTING} levels deep`;

export interface YamlProblem {
  /** 1-based line of the offending alias, when known. */
  readonly line?: number;
  readonly message: string;
}

export type YamlToPlainResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: readonly YamlProblem[] };

/**
 * The yaml library's own errors quote the alias name, which a `${VAR}` expansion may have put there (a secret
 * starting with `*`): callers get fixed messages and the line only.
 */
export function yamlToPlain(document: Document, text: string): YamlToPlainResult {
  const problems: YamlProblem[] = [];
  // An alias resolves to the last anchor of its name before it in document order, which is the visiting order.
  const anchors = new Map<string, Node>();
  const lineAt = lineFinder(text);
  let aliases = 0;
  let tooDeep = false;
  visit(document, {
    // A list or mapping as a key would become text (`[ a ]`) in a process warning that quotes it, `${VAR}` values
    // included; no key of ours is one.
    Pair(_key, pair) {
      const key = isAlias(pair.key) ? anchors.get(pair.key.source) : pair.key;
      if (!isCollection(key)) return;
      const offset = (pair.key as Node).range?.[0];
      problems.push({
        ...(offset === undefined ? {} : { line: lineAt(offset) }),
        message: 'a key that is a list or a mapping is not supported: keys are text (the key is not shown)',
      });
    },
    Node(_key, node, path) {
      if (!isAlias(node)) {
        if (node.anchor) anchors.set(node.anchor, node);
        // The path holds pairs and the document too: only a long one is counted.
        if (
          isCollection(node) &&
          path.length >= MAX_NESTING &&
          path.filter(isCollection).length >= MAX_NESTING
        ) {
          tooDeep = true;
          const offset = node.range?.[0];
          problems.push({ ...(offset === undefined ? {} : { line: lineAt(offset) }), message: TOO_DEEP });
          return visit.BREAK;
        }
        return;
      }
      if (++aliases > MAX_ALIASES) {
        problems.push({
          message: `more than ${MAX_ALIASES} aliases (refused as a resource exhaustion attempt)`,
        });
        return visit.BREAK;
      }
      if (anchors.has(node.source)) return;
      const offset = node.range?.[0];
      problems.push({
        ...(offset === undefined ? {} : { line: lineAt(offset) }),
        message: 'unresolved alias: its anchor is not set before it (the name is not shown)',
      });
      return undefined;
    },
  });
  if (aliases > MAX_ALIASES || tooDeep) return { ok: false, problems: problems.slice(-1) };
  if (problems.length > 0) return { ok: false, problems };
  try {
    return { ok: true, value: document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    // Past the checks above, only the alias limit is expected here; any other library message is not repeated.
    const excessive = error instanceof Error && error.message.startsWith('Excessive alias count');
    const message = excessive
      ? `aliases expand beyond the limit of ${MAX_ALIAS_COUNT} (refused as a resource exhaustion attempt)`
      : 'the document cannot be resolved to plain values';
    return { ok: false, problems: [{ message }] };
  }
}

/** The 1-based line of an offset, by binary search over line starts found once (not a scan per alias). */
function lineFinder(text: string): (offset: number) => number {
  let starts: number[] | undefined;
  return (offset) => {
    if (starts === undefined) {
      starts = [0];
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    }
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
}

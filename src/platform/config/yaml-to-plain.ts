// Turns a parsed YAML document into plain values; alias problems are reported without the alias name.
import { type Alias, type Document, isAlias, isCollection, isScalar, type Node, visit } from 'yaml';
import { measureAliasExpansion } from './alias-expansion.ts';

/**
 * Aliases a document may hold. The yaml library resolves each alias by looking back over the anchors and aliases
 * before it, so tens of thousands of them, each harmless, would take minutes.
 */
export const MAX_ALIASES = 1000;

/**
 * Values aliases may add to a document once expanded: each copy is walked by every check afterwards, so a few
 * aliases of one large collection cost as much as an alias bomb.
 */
export const MAX_ALIAS_EXPANSION = 10_000;

/**
 * Collections a document may nest inside one another. A configuration or manifest needs about ten; thousands would
 * exhaust the stack of whatever walks the values afterwards.
 */
export const MAX_NESTING = 64;

export const TOO_DEEP = `collections nest more than ${MAX_NESTING} levels deep`;

/** A surrogate code unit that is not half of a pair: with the `u` flag, a pair is one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

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
  const targets = new Map<Alias, Node>();
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
        // Only a `\uD800` escape makes one (the file is UTF-8). No name or value of ours can be one, and whatever
        // encodes it later (a URL, a header, a digest of the text) would throw or change it at run time.
        if (isScalar(node) && typeof node.value === 'string' && LONE_SURROGATE.test(node.value)) {
          const offset = node.range?.[0];
          problems.push({
            ...(offset === undefined ? {} : { line: lineAt(offset) }),
            message:
              'a lone UTF-16 surrogate (a `\\u` escape with no pair) is not text (the value is not shown)',
          });
          return;
        }
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
      const target = anchors.get(node.source);
      if (target !== undefined) {
        targets.set(node, target);
        return;
      }
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
  const expansion = measureAliasExpansion(document.contents, targets, [...new Set(targets.values())]);
  if (!expansion.ok) {
    const offset = expansion.cycleAt.range?.[0];
    return {
      ok: false,
      problems: [
        {
          ...(offset === undefined ? {} : { line: lineAt(offset) }),
          message:
            'an alias inside the collection its anchor names would repeat it without end (the name is not shown)',
        },
      ],
    };
  }
  if (expansion.added > MAX_ALIAS_EXPANSION) {
    return {
      ok: false,
      problems: [
        {
          message: `aliases expand to more than ${MAX_ALIAS_EXPANSION} values (refused as a resource exhaustion attempt)`,
        },
      ],
    };
  }
  try {
    // Bounded above, by the values the aliases add: the library's own count refuses an anchor aliased 100 times.
    return { ok: true, value: document.toJS({ maxAliasCount: -1 }) };
  } catch {
    return { ok: false, problems: [{ message: 'the document cannot be resolved to plain values' }] };
  }
}

/** The 1-based line of an offset, by binary search over line starts found once (not a scan per alias). */
export function lineFinder(text: string): (offset: number) => number {
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

// Duplicate mapping keys, found in one pass: the yaml library's own `uniqueKeys` check compares every key with
// every earlier one, which takes minutes on a mapping of a few hundred thousand keys.
import { type Document, isMap, isScalar, type LineCounter, visit } from 'yaml';

export interface DuplicateKey {
  readonly line: number;
  readonly message: string;
}

export function findDuplicateKeys(document: Document, lines: LineCounter): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  visit(document, {
    Map(_key, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        // Scalar keys compare as the object keys they become (`1` and "1" are one key, `~` and "" another); other
        // keys are refused later as unknown keys.
        if (!isScalar(pair.key)) continue;
        const name = pair.key.value === null ? '' : String(pair.key.value);
        if (!seen.has(name)) {
          seen.add(name);
          continue;
        }
        const { line, col } = lines.linePos(pair.key.range?.[0] ?? 0);
        found.push({ line, message: `Map keys must be unique at line ${line}, column ${col}` });
      }
    },
  });
  return found;
}

// One order for cell keys wherever a snapshot compares them: numbers and booleans as JavaScript orders them, strings
// by code point, which is the order of their UTF-8 bytes and of PostgreSQL's C collation (so a snapshot and a live
// table over the same column agree). JavaScript's own string order (UTF-16 code units) differs from it only where
// a character beyond U+FFFF meets one in U+E000–U+FFFF, so the slower code-point comparison is needed only when
// both strings hold a unit from U+D800 up: the fast paths below check for that once per value, not per comparison.
import { compareCodePoints } from '../../platform/compare-code-points.ts';
import type { CellKey } from './column.ts';

const HIGH_UNITS = /[\uD800-\uFFFF]/;

/** Whether `key` is a string with a code unit from U+D800 up (a surrogate, or U+E000–U+FFFF). */
export function hasHighUnits(key: CellKey | null | undefined): boolean {
  return typeof key === 'string' && HIGH_UNITS.test(key);
}

/** Whether any key in `keys` has high units (see `hasHighUnits`): only then does the native order need help. */
export function anyHighUnits(keys: ArrayLike<CellKey | null | undefined>): boolean {
  for (let index = 0; index < keys.length; index++) if (hasHighUnits(keys[index])) return true;
  return false;
}

/** Negative, zero or positive as `a` sorts before, with or after `b`. */
export function compareKeys(a: CellKey, b: CellKey): number {
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
}

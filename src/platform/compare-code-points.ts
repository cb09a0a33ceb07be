// Strings in code point order: the order of their UTF-8 bytes, of PostgreSQL's C collation and of the CEL language
// definition. JavaScript's own string order (UTF-16 code units) differs from it only where a character beyond
// U+FFFF (a surrogate pair) meets one in U+E000–U+FFFF.

/** Negative, zero or positive as `a` sorts before, with or after `b`. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const shorter = Math.min(a.length, b.length);
  let index = 0;
  while (index < shorter && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  if (index === shorter) return a.length - b.length;
  const x = a.charCodeAt(index);
  const y = b.charCodeAt(index);
  // A surrogate starts a character beyond U+FFFF: above any unit of U+E000–U+FFFF, though its own unit is lower.
  const xSurrogate = x >= 0xd800 && x <= 0xdfff;
  const ySurrogate = y >= 0xd800 && y <= 0xdfff;
  if (xSurrogate !== ySurrogate && x >= 0xd800 && y >= 0xd800) return xSurrogate ? 1 : -1;
  return x - y;
}

// Numbers of an `.in` list that a JSON answer cannot tell apart: JSON numbers are read as doubles, so a source
// holding its values exactly (a 64-bit integer or decimal column) answers 9007199254740993 as 9007199254740992.

/** A decimal number's text: sign, digits, optional fraction and exponent (as the relay reads a number). */
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The doubles that two or more values of the list spell as different numbers (`9007199254740992` and
 * `9007199254740993`, `0.1` and `0.10000000000000000001`). A row answered with such a double may be the record of
 * either value: it is not the record of the one whose text the double prints as. Spellings of one number (`7`,
 * `007`, `7.0`) are one value, and share nothing.
 */
export function sharedDoubles(values: Iterable<string>): Set<number> {
  const exact = new Map<number, string>();
  const shared = new Set<number>();
  for (const value of values) {
    const number = exactNumber(value);
    if (number === undefined) continue;
    const double = Number(value);
    const seen = exact.get(double);
    if (seen === undefined) exact.set(double, number);
    else if (seen !== number) shared.add(double);
  }
  return shared;
}

/** The number a decimal text spells, written one way for every spelling of it (`-12e3` for `-012000.0`). */
function exactNumber(text: string): string | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  const trimmed = digits.replace(/0+$/, '');
  // BigInt: a list's exponents are as long as the request lets them be.
  const power = BigInt(exponent) - BigInt(fraction.length) + BigInt(digits.length - trimmed.length);
  digits = trimmed;
  return `${sign === '-' ? '-' : ''}${digits}e${power}`;
}

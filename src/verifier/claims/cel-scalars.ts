// String conversions and string ordering as the CEL language definition and cel-go (its reference implementation)
// define them, replacing @bufbuild/cel 0.6 overloads that differ: `int()`, `uint()` and `double()` of a string used
// JavaScript's lenient parsing (an empty or blank string was 0, ' 12' was 12, '0x10' was 16, and `double('abc')`
// was NaN instead of an error); and `<`, `<=`, `>`, `>=` on strings compared UTF-16 units instead of code points,
// which puts characters beyond U+FFFF (emoji, rarer CJK) before U+E000-U+FFFF; and the int remainder of the least
// int by -1 was 0 where the definition, like the quotient, overflows.
import { type CelFunc, CelScalar, celFunc, celUint } from '@bufbuild/cel';
import { compareCodePoints } from '../../platform/compare-code-points.ts';

const { BOOL, DOUBLE, INT, STRING, UINT } = CelScalar;
const MAX_INT = 9223372036854775807n;
const MIN_INT = -9223372036854775808n;
const MAX_UINT = 18446744073709551615n;

const DECIMAL_INT = /^[+-]?[0-9]+$/;
const DECIMAL_UINT = /^[0-9]+$/;
// Digits, an optional point and more digits, written so that a match is found or refused in one pass: with the
// point optional between two digit runs, a long run of digits not followed by a valid end was split every possible
// way before it failed (seconds for 60,000 digits).
const DECIMAL_DOUBLE = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const INFINITY = /^([+-]?)inf(?:inity)?$/i;

/**
 * The digits of a decimal integer past its sign and leading zeros. A number of more digits than its range holds is
 * out of range without being parsed, and is parsed without the zeros: parsing a long digit string takes time
 * growing with the square of its length (a tenth of a second for a megabyte, on the request thread for an
 * expression bounded-cel.ts lets run there).
 */
export function significantDigits(text: string): string {
  let index = text[0] === '+' || text[0] === '-' ? 1 : 0;
  while (index < text.length - 1 && text.charCodeAt(index) === 0x30) index++;
  return text.slice(index);
}

function parseInt64(text: string): bigint {
  if (!DECIMAL_INT.test(text)) throw new Error(`cannot convert '${text}' to int`);
  const digits = significantDigits(text);
  if (digits.length > 19) throw new Error('int out of range during type conversion');
  const value = BigInt(text[0] === '-' ? `-${digits}` : digits);
  if (value < MIN_INT || value > MAX_INT) throw new Error('int out of range during type conversion');
  return value;
}

function parseUint64(text: string) {
  if (!DECIMAL_UINT.test(text)) throw new Error(`cannot convert '${text}' to uint`);
  const digits = significantDigits(text);
  if (digits.length > 20) throw new Error('uint out of range during type conversion');
  const value = BigInt(digits);
  if (value > MAX_UINT) throw new Error('uint out of range during type conversion');
  return celUint(value);
}

function parseDouble(text: string): number {
  if (DECIMAL_DOUBLE.test(text)) {
    const value = Number(text);
    // A decimal beyond the double range fails rather than becoming infinity.
    if (!Number.isFinite(value)) throw new Error('double out of range during type conversion');
    return value;
  }
  const infinity = INFINITY.exec(text);
  if (infinity) return infinity[1] === '-' ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return Number.NaN;
  throw new Error(`cannot convert '${text}' to double`);
}

function remainder(l: bigint, r: bigint): bigint {
  if (r === 0n) throw new Error('int modulus by zero');
  if (l === MIN_INT && r === -1n) throw new Error('int overflow in modulus');
  return l % r;
}

export const scalarFuncs: CelFunc[] = [
  celFunc('_%_', [INT, INT], INT, remainder),
  celFunc('int', [STRING], INT, parseInt64),
  celFunc('uint', [STRING], UINT, parseUint64),
  celFunc('double', [STRING], DOUBLE, parseDouble),
  celFunc('_<_', [STRING, STRING], BOOL, (l: string, r: string) => compareCodePoints(l, r) < 0),
  celFunc('_<=_', [STRING, STRING], BOOL, (l: string, r: string) => compareCodePoints(l, r) <= 0),
  celFunc('_>_', [STRING, STRING], BOOL, (l: string, r: string) => compareCodePoints(l, r) > 0),
  celFunc('_>=_', [STRING, STRING], BOOL, (l: string, r: string) => compareCodePoints(l, r) >= 0),
];

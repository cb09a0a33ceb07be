// `duration(string)` as cel-go (CEL's reference implementation) parses it, replacing the
// @bufbuild/cel 0.6 overload, which read an empty string (or a lone sign) as a zero duration instead of failing.
import { type CelFunc, CelScalar, celFunc, objectType } from '@bufbuild/cel';
import { create } from '@bufbuild/protobuf';
import { type Duration, DurationSchema } from '@bufbuild/protobuf/wkt';
import { significantDigits } from './cel-scalars.ts';

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const UNIT = 'ns|us|µs|μs|ms|s|m|h';
const DURATION = new RegExp(`^([+-]?)((?:(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:${UNIT}))+)$`);
const PART = new RegExp(`([0-9]*)(?:\\.([0-9]*))?(${UNIT})`, 'g');
/** A duration is a signed 64-bit count of nanoseconds (about 292 years either way). */
const MAX_NANOS = 9223372036854775807n;
/**
 * Fraction digits read: later ones could change the count by one nanosecond at most, and only at a boundary (cel-go
 * reads about 19, through floating point). Reading all of them, and a whole part of more digits than the range
 * holds, took time growing with the square of their number: a third of a second for a megabyte of digits.
 */
const MAX_FRACTION_DIGITS = 30;

function parseDuration(text: string): Duration {
  if (/^[+-]?0$/.test(text)) return create(DurationSchema, {});
  const match = DURATION.exec(text);
  if (!match) throw new Error(`invalid duration '${text}'`);
  let nanos = 0n;
  for (const [, whole = '', fraction = '', unit] of (match[2] as string).matchAll(PART)) {
    const scale = UNITS[unit as string] as bigint;
    const units = significantDigits(whole);
    if (units.length > 19) throw new Error('duration out of range');
    const read = fraction.slice(0, MAX_FRACTION_DIGITS);
    nanos += BigInt(units || '0') * scale + (BigInt(read || '0') * scale) / 10n ** BigInt(read.length);
  }
  if (nanos > MAX_NANOS + (match[1] === '-' ? 1n : 0n)) throw new Error('duration out of range');
  if (match[1] === '-') nanos = -nanos;
  return create(DurationSchema, { seconds: nanos / 1_000_000_000n, nanos: Number(nanos % 1_000_000_000n) });
}

export const durationFuncs: CelFunc[] = [
  celFunc('duration', [CelScalar.STRING], objectType(DurationSchema), parseDuration),
];

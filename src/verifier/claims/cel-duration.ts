// `duration(string)` as cel-go (CEL's reference implementation) parses it, replacing the
// @bufbuild/cel 0.6 overload, which read an empty string (or a lone sign) as a zero duration instead of failing.
import { type CelFunc, CelScalar, celFunc, objectType } from '@bufbuild/cel';
import { create } from '@bufbuild/protobuf';
import { type Duration, DurationSchema } from '@bufbuild/protobuf/wkt';

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

function parseDuration(text: string): Duration {
  if (/^[+-]?0$/.test(text)) return create(DurationSchema, {});
  const match = DURATION.exec(text);
  if (!match) throw new Error(`invalid duration '${text}'`);
  let nanos = 0n;
  for (const [, whole, fraction = '', unit] of (match[2] as string).matchAll(PART)) {
    const scale = UNITS[unit as string] as bigint;
    nanos +=
      BigInt(whole || '0') * scale + (BigInt(fraction || '0') * scale) / 10n ** BigInt(fraction.length);
  }
  if (nanos > MAX_NANOS + (match[1] === '-' ? 1n : 0n)) throw new Error('duration out of range');
  if (match[1] === '-') nanos = -nanos;
  return create(DurationSchema, { seconds: nanos / 1_000_000_000n, nanos: Number(nanos % 1_000_000_000n) });
}

export const durationFuncs: CelFunc[] = [
  celFunc('duration', [CelScalar.STRING], objectType(DurationSchema), parseDuration),
];

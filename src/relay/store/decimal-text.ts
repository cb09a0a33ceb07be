// Exact decimal text of a scaled integer: Parquet DECIMALs, and the bounds of live numeric filters.

/**
 * The decimal `unscaled × 10^-scale` written out exactly, without trailing fractional zeros (`57n, 2` → `0.57`,
 * `500n, 2` → `5`): a `string` field serves this text, a `number` field the double nearest it (`Number(text)`),
 * an `integer` field a whole value within the safe range. hyparquet's own `Number(unscaled) * 10 ** -scale`
 * rounds twice (0.57 → 0.5700000000000001) and loses digits past 2^53.
 */
export function decimalText(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  // A negative scale (not allowed by the Parquet spec, but cheap to honour) multiplies by a power of ten.
  if (scale <= 0) return unscaled === 0n ? '0' : `${negative ? '-' : ''}${digits}${'0'.repeat(-scale)}`;
  digits = digits.padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  // Matched only from the start of a zero run: unanchored, `0+$` scanned a run of zeros followed by another digit
  // again from each of its zeros (quadratic in the scale, which a Parquet file declares).
  const fraction = digits.slice(digits.length - scale).replace(/(?<!0)0+$/, '');
  const text = fraction === '' ? whole : `${whole}.${fraction}`;
  return negative && text !== '0' ? `-${text}` : text;
}

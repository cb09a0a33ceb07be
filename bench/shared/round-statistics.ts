// Interleaved rounds: who goes first in a round, medians, and per-round ratios between two sides.

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The targets in the given order on odd rounds and reversed on even ones, so a slow drift of the host does not
 * always favour the same side. */
export function alternatingOrder<T>(round: number, targets: readonly T[]): T[] {
  return round % 2 === 1 ? [...targets] : [...targets].reverse();
}

/** rps of each `over` run divided by the rps of the `under` run of the same round; rounds without a pair are left out. */
export function pairedRatios(
  over: readonly { readonly round: number; readonly rps: number }[],
  under: readonly { readonly round: number; readonly rps: number }[],
): number[] {
  return over.flatMap((run) => {
    const paired = under.find((other) => other.round === run.round);
    return paired ? [run.rps / paired.rps] : [];
  });
}

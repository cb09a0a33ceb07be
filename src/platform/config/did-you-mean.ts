// Suggests the closest known name for a misspelt key, filter or field.
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const limit = Math.max(2, Math.floor(input.length / 3));
  return best !== undefined && bestDistance <= limit ? best : undefined;
}

export function hint(input: string, candidates: Iterable<string>): string {
  const guess = didYouMean(input, candidates);
  return guess === undefined ? '' : ` (did you mean \`${guess}\`?)`;
}

/** Levenshtein distance, for short names. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + cost);
      previous = current;
    }
  }
  return row[b.length] as number;
}

// A count with its noun in the number it takes: `1 dataset`, `2 datasets`.

/** `count` and `noun`, plural (`plural`, else the noun with an s) unless the count is one. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

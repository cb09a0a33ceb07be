// An index built in steps, so the same build can run at once (the first read that needs it) or in slices that
// yield to the event loop (a reload preparing the indexes the table it replaces had, before it is served).

export interface IndexBuild<T> {
  /** Does about `budget` rows' worth of work; true once the index is complete. */
  step(budget: number): boolean;
  /** The index; only once `step` returned true. */
  result(): T;
}

/** Rows' worth of work between two turns of the event loop: a few milliseconds. */
export const SLICE_ROWS = 65_536;

export function buildNow<T>(build: IndexBuild<T>): T {
  while (!build.step(Number.POSITIVE_INFINITY));
  return build.result();
}

export async function buildInSlices<T>(build: IndexBuild<T>, slice = SLICE_ROWS): Promise<T> {
  while (!build.step(slice)) await new Promise((resolve) => setImmediate(resolve));
  return build.result();
}

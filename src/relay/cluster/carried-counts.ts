// Counters and histograms of a worker slot's processes that are gone. The primary sums what each worker reports at
// scrape time; without these, a worker that exits (or misses a scrape) would take its counts out of the sums, and
// Prometheus reads a counter that goes down as a reset. A slot's new process then adds its counts on top.
import type { MetricFamily, MetricSample } from '../../platform/metrics/metric-family.ts';

/** The families of a scrape that only ever grow (counters and histograms). */
export function monotonicFamilies(families: readonly MetricFamily[]): MetricFamily[] {
  return families.filter((family) => family.type !== 'gauge');
}

export class CarriedCounts {
  private readonly families = new Map<string, { family: MetricFamily; samples: Map<string, MetricSample> }>();

  /** Adds the last scrape of a process that is gone. */
  add(families: readonly MetricFamily[]): void {
    for (const family of monotonicFamilies(families)) {
      let carried = this.families.get(family.name);
      if (carried === undefined) {
        carried = { family, samples: new Map() };
        this.families.set(family.name, carried);
      }
      for (const sample of family.values) {
        const key = `${sample.metricName ?? ''}\u0000${labelKey(sample.labels)}`;
        const before = carried.samples.get(key);
        carried.samples.set(key, { ...sample, value: (before?.value ?? 0) + sample.value });
      }
    }
  }

  /** The counts carried so far, as the families of one more process (empty when none). */
  get(): MetricFamily[] {
    return [...this.families.values()].map(({ family, samples }) => ({
      ...family,
      values: [...samples.values()],
    }));
  }
}

/** What the primary keeps of a worker slot for its metrics. */
export interface ScrapedSlot {
  readonly listening: boolean;
  /** The current process's last scrape. */
  scraped: MetricFamily[] | undefined;
  /** Counts of the slot's earlier processes, so that sums never go down. */
  readonly carried: CarriedCounts;
}

/**
 * A slot's families, as several processes' worth: the current process's scrape, or its state as not running and
 * its last counts when it is down or does not answer; and the counts of the slot's earlier processes.
 */
export async function scrapeSlot(
  slot: ScrapedSlot,
  ask: () => Promise<MetricFamily[]>,
  notRunning: () => MetricFamily[],
): Promise<MetricFamily[][]> {
  // The carried counts are read once the answer is in: a process that exited meanwhile has had its last scrape
  // moved there (and out of `scraped`), so it is counted exactly once either way.
  const earlier = () => {
    const carried = slot.carried.get();
    return carried.length > 0 ? [carried] : [];
  };
  if (slot.listening) {
    try {
      slot.scraped = await ask();
      return [slot.scraped, ...earlier()];
    } catch {
      // Counted as not running below.
    }
  }
  const last = monotonicFamilies(slot.scraped ?? []);
  return [notRunning(), ...(last.length > 0 ? [last] : []), ...earlier()];
}

function labelKey(labels: MetricSample['labels']): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// Metric families as plain data: what a process reports on scrape, rendered (and summed across processes) by
// prom-client. Plain data crosses the cluster IPC channel unchanged.

export type MetricLabels = Readonly<Record<string, string | number>>;

export interface MetricSample {
  /** The series name when it differs from the family's (`_bucket`, `_sum`, `_count` of a histogram). */
  readonly metricName?: string;
  readonly labels: MetricLabels;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  /** How the samples of several processes combine: counters and histograms add up. */
  readonly aggregator: 'sum' | 'min' | 'max';
  readonly values: readonly MetricSample[];
}

export function counterFamily(name: string, help: string, values: readonly MetricSample[]): MetricFamily {
  return { name, help, type: 'counter', aggregator: 'sum', values };
}

export function gaugeFamily(
  name: string,
  help: string,
  values: readonly MetricSample[],
  aggregator: MetricFamily['aggregator'] = 'sum',
): MetricFamily {
  return { name, help, type: 'gauge', aggregator, values };
}

/** Upper bounds in seconds for request and scan latencies. */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * Observations in milliseconds, counted per bucket (not cumulative) with one overflow slot at the end: the
 * cheapest shape to record into. `histogramSamples` turns it into Prometheus' cumulative series.
 */
export interface Histogram {
  readonly counts: Float64Array;
  sumMs: number;
}

export function createHistogram(buckets: readonly number[] = LATENCY_BUCKETS_SECONDS): Histogram {
  return { counts: new Float64Array(buckets.length + 1), sumMs: 0 };
}

/** Bucket bounds in milliseconds, for `observe`. */
export function boundsMs(buckets: readonly number[] = LATENCY_BUCKETS_SECONDS): Float64Array {
  return Float64Array.from(buckets, (seconds) => seconds * 1000);
}

export function observe(histogram: Histogram, bounds: Float64Array, ms: number): void {
  let slot = 0;
  while (slot < bounds.length && ms > (bounds[slot] as number)) slot++;
  (histogram.counts as Float64Array)[slot] = (histogram.counts[slot] as number) + 1;
  histogram.sumMs += ms;
}

export function histogramSamples(
  name: string,
  labels: MetricLabels,
  histogram: Histogram,
  buckets: readonly number[] = LATENCY_BUCKETS_SECONDS,
): MetricSample[] {
  const samples: MetricSample[] = [];
  let cumulative = 0;
  buckets.forEach((bound, slot) => {
    cumulative += histogram.counts[slot] as number;
    samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
  });
  cumulative += histogram.counts[buckets.length] as number;
  samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cumulative });
  samples.push({ metricName: `${name}_sum`, labels, value: histogram.sumMs / 1000 });
  samples.push({ metricName: `${name}_count`, labels, value: cumulative });
  return samples;
}

export function histogramFamily(name: string, help: string, values: readonly MetricSample[]): MetricFamily {
  return { name, help, type: 'histogram', aggregator: 'sum', values };
}

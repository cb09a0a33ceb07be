// Prometheus text exposition (format 0.0.4) of the metric families of one or more processes, summed by family.
import client from 'prom-client';
import type { MetricFamily } from './metric-family.ts';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Each element is one process's families; samples with equal names and labels combine by the family aggregator. */
export function renderPrometheus(processes: readonly (readonly MetricFamily[])[]): Promise<string> {
  return client.AggregatorRegistry.aggregate(processes as object[]).metrics();
}

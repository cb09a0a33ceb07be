// Request counts and latencies per route, recorded for almost nothing: each route gets its own counters when it
// is registered and a route-level onResponse hook that bumps them (no label lookup, no allocation per request).
// prom-client only sees them on scrape, through `families()`.
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import {
  boundsMs,
  counterFamily,
  createHistogram,
  type Histogram,
  histogramFamily,
  histogramSamples,
  type MetricFamily,
  type MetricLabels,
  type MetricSample,
} from '../metrics/metric-family.ts';

interface RouteStats {
  readonly method: string;
  readonly route: string;
  /** Responses by status code (index = status). */
  readonly statuses: Float64Array;
  readonly latency: Histogram;
}

export interface RouteMetrics {
  /** Adds the hook to every route registered on `app` from now on; call before registering routes. */
  instrument(app: FastifyInstance): void;
  /** `<prefix>_http_requests_total` and `<prefix>_http_request_duration_seconds`, read now. */
  families(): MetricFamily[];
}

const BOUNDS = boundsMs();

/**
 * `labels` go on every series, after `method` and `route`: a second listener of the same service (its admin
 * listener) reports under the same family names, told apart by them.
 */
export function createRouteMetrics(prefix: string, labels: MetricLabels = {}): RouteMetrics {
  const routes: RouteStats[] = [];
  // GET and POST routes by pattern, for responses the fast lane (its GETs and JSON POSTs) writes without Fastify's
  // hooks. A map per method: no key is built per request.
  const gets = new Map<string, RouteStats>();
  const posts = new Map<string, RouteStats>();
  return {
    instrument(app) {
      app.fastLane?.onResponse((request, reply, durationMs) => {
        const stats = (request.method === 'POST' ? posts : gets).get(request.routeOptions.url ?? '');
        if (stats) record(stats, reply.statusCode, durationMs);
      });
      app.addHook('onRoute', (options) => {
        const methods = Array.isArray(options.method) ? options.method : [options.method];
        for (const method of methods) {
          const stats: RouteStats = {
            method,
            route: options.url,
            statuses: new Float64Array(600),
            latency: createHistogram(),
          };
          routes.push(stats);
          if (method === 'GET') gets.set(options.url, stats);
          else if (method === 'POST') posts.set(options.url, stats);
          const hook: onResponseHookHandler = (
            request: FastifyRequest,
            reply: FastifyReply,
            done: () => void,
          ) => {
            if (request.method === method) record(stats, reply.statusCode, reply.elapsedTime);
            done();
          };
          const existing = options.onResponse;
          options.onResponse =
            existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
        }
      });
    },
    families() {
      const counts: MetricSample[] = [];
      const latencies: MetricSample[] = [];
      const latencyName = `${prefix}_http_request_duration_seconds`;
      for (const stats of routes) {
        const routeLabels = { method: stats.method, route: stats.route, ...labels };
        stats.statuses.forEach((value, status) => {
          if (value > 0) counts.push({ labels: { ...routeLabels, status }, value });
        });
        if (stats.latency.counts.some((value) => value > 0)) {
          latencies.push(...histogramSamples(latencyName, routeLabels, stats.latency));
        }
      }
      return [
        counterFamily(
          `${prefix}_http_requests_total`,
          'HTTP responses by route template and status.',
          counts,
        ),
        histogramFamily(latencyName, 'HTTP response time by route template, in seconds.', latencies),
      ];
    },
  };
}

function record(stats: RouteStats, status: number, ms: number): void {
  if (status >= 100 && status < 600) stats.statuses[status] = (stats.statuses[status] as number) + 1;
  let slot = 0;
  while (slot < BOUNDS.length && ms > (BOUNDS[slot] as number)) slot++;
  stats.latency.counts[slot] = (stats.latency.counts[slot] as number) + 1;
  stats.latency.sumMs += ms;
}

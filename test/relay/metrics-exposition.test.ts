// The relay's `/metrics` text read by a Prometheus text-format parser that is not ours (parse-prometheus-text-format,
// a port of the Prometheus Python client's parser), so a mistake shared by our renderer and our own test reader
// (test/helpers/parse-prometheus-text.ts) cannot hide: families, HELP and TYPE, label escaping, histograms, counts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import {
  counterFamily,
  gaugeFamily,
  LATENCY_BUCKETS_SECONDS,
} from '../../src/platform/metrics/metric-family.ts';
import { renderPrometheus } from '../../src/platform/metrics/render-prometheus.ts';
import type { RelayConfig } from '../../src/relay/config/schema.ts';
import { createRelayMetrics } from '../../src/relay/metrics/relay-metrics.ts';
import { parsePrometheusText } from '../helpers/parse-prometheus-text.ts';
import {
  closeHarness,
  type Harness,
  RELOAD_KEYS,
  type ReloadPersona,
  startHarness,
} from './reload-fixture.ts';

/** The families the operations guide lists, each with the type it gives. */
const DOCUMENTED: Record<string, ParsedFamily['type']> = {
  ambit_relay_http_requests_total: 'COUNTER',
  ambit_relay_http_request_duration_seconds: 'HISTOGRAM',
  ambit_relay_readiness_fully_ready: 'GAUGE',
  ambit_relay_readiness_ready_resources: 'GAUGE',
  ambit_relay_readiness_failed_resources: 'GAUGE',
  ambit_relay_readiness_not_ready_resources: 'GAUGE',
  ambit_relay_processes: 'GAUGE',
  ambit_relay_processes_configured: 'GAUGE',
  ambit_relay_generation_loaded_timestamp_seconds: 'GAUGE',
  ambit_relay_reloads_total: 'COUNTER',
  ambit_relay_source_loads_total: 'COUNTER',
  ambit_relay_source_load_duration_seconds: 'HISTOGRAM',
  ambit_relay_source_rows: 'GAUGE',
  ambit_relay_source_current_timestamp_seconds: 'GAUGE',
  ambit_relay_datasource_live_scans_total: 'COUNTER',
  ambit_relay_datasource_live_scan_duration_seconds: 'HISTOGRAM',
  ambit_relay_datasource_live_scan_wait_seconds: 'HISTOGRAM',
  ambit_relay_datasource_live_scan_rows_total: 'COUNTER',
  ambit_relay_datasource_live_scan_bytes_total: 'COUNTER',
};

/** Every family once, each with a HELP and a TYPE, counters named `_total`. */
function checkFamilies(text: string): Map<string, ParsedFamily> {
  const families = new Map<string, ParsedFamily>();
  for (const family of parsePrometheusTextFormat(text)) {
    assert.equal(families.has(family.name), false, `family ${family.name} is split in two`);
    families.set(family.name, family);
    assert.notEqual(family.help, '', `${family.name} has no HELP`);
    assert.ok(['COUNTER', 'GAUGE', 'HISTOGRAM'].includes(family.type), `${family.name}: ${family.type}`);
    if (family.type === 'COUNTER') assert.match(family.name, /_total$/);
    if (family.type === 'HISTOGRAM') continue;
    for (const sample of family.metrics) {
      const value = Number(sample.value);
      assert.ok(Number.isFinite(value) && value >= 0, `${family.name}: ${sample.value}`);
    }
  }
  return families;
}

interface Series {
  readonly buckets: [number, number][];
  sum?: number;
  count?: number;
}

/**
 * Each histogram series (labels without `le`): the parser folds labelled histograms into one sample, so their
 * `_bucket`, `_sum` and `_count` lines are read as plain series, with the histogram TYPE lines turned untyped.
 */
function histogramSeries(text: string, names: readonly string[]): Map<string, Series> {
  const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
  const series = new Map<string, Series>();
  for (const family of parsePrometheusTextFormat(untyped)) {
    const part = /^(.*)_(bucket|sum|count)$/.exec(family.name);
    if (!part || !names.includes(part[1] as string)) continue;
    for (const sample of family.metrics) {
      const { le, ...labels } = sample.labels ?? {};
      const key = `${part[1]}${JSON.stringify(Object.entries(labels).sort())}`;
      const found = series.get(key) ?? { buckets: [] };
      series.set(key, found);
      const value = Number(sample.value);
      if (part[2] === 'bucket')
        found.buckets.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), value]);
      else if (part[2] === 'sum') found.sum = value;
      else found.count = value;
    }
  }
  return series;
}

/** Bounds increasing up to `+Inf`, counts cumulative, `+Inf` equal to `_count`, a `_sum`. */
function checkHistograms(text: string, names: readonly string[]): Map<string, Series> {
  const series = histogramSeries(text, names);
  for (const [key, { buckets, sum, count }] of series) {
    assert.ok(sum !== undefined && sum >= 0, `${key}: _sum ${sum}`);
    assert.ok(count !== undefined, `${key}: no _count`);
    assert.equal(buckets.at(-1)?.[0], Number.POSITIVE_INFINITY, `${key}: the last bucket is not +Inf`);
    assert.equal(buckets.at(-1)?.[1], count, `${key}: +Inf differs from _count`);
    buckets.forEach(([bound, value], i) => {
      const previous = buckets[i - 1];
      if (previous === undefined) return;
      assert.ok(bound > previous[0], `${key}: bounds not increasing`);
      assert.ok(value >= previous[1], `${key}: buckets not cumulative`);
    });
  }
  return series;
}

function histogramNames(families: Map<string, ParsedFamily>): string[] {
  return [...families.values()].filter((family) => family.type === 'HISTOGRAM').map((family) => family.name);
}

describe('the /metrics text, read by an independent parser', () => {
  let h: Harness;
  const admin = (url: string, as?: ReloadPersona) =>
    h.admin.inject({
      method: 'GET',
      url,
      headers: as === undefined ? {} : { authorization: `Bearer ${RELOAD_KEYS[as]}` },
    });
  const scrape = async () => {
    const response = await admin('/metrics', 'metrics_only');
    assert.equal(response.statusCode, 200);
    return response.body;
  };
  before(async () => {
    h = await startHarness();
  });
  after(() => closeHarness(h));

  it('gives every family once, with HELP and the documented TYPE, and consistent histograms', async () => {
    await h.get('/v1/datasets/people/entities/person/records?limit=2');
    await h.get('/v1/datasets/people/entities/person/records/999999');
    await admin('/admin/v1/posture', 'ops_only');
    const text = await scrape();
    const families = checkFamilies(text);
    for (const [name, type] of Object.entries(DOCUMENTED)) {
      assert.equal(families.get(name)?.type, type, name);
    }
    const series = checkHistograms(text, histogramNames(families));
    const latency = [...series].filter(([key]) =>
      key.startsWith('ambit_relay_http_request_duration_seconds'),
    );
    assert.ok(latency.length >= 3, 'the requests sent have latency series');
    for (const [key, { buckets }] of latency) {
      assert.deepEqual(
        buckets.map(([bound]) => bound),
        [...LATENCY_BUCKETS_SECONDS, Number.POSITIVE_INFINITY],
        key,
      );
    }
  });

  it('reads the same series and values as the strict reader the other metrics tests use', async () => {
    const text = await scrape();
    const ours = new Map<string, number>();
    for (const family of parsePrometheusText(text).values()) {
      if (family.type === 'histogram') continue;
      for (const sample of family.samples)
        ours.set(`${sample.name}${JSON.stringify(sample.labels)}`, sample.value);
    }
    const theirs = new Map<string, number>();
    for (const family of parsePrometheusTextFormat(text)) {
      if (family.type === 'HISTOGRAM') continue;
      for (const sample of family.metrics) {
        theirs.set(`${family.name}${JSON.stringify(sample.labels ?? {})}`, Number(sample.value));
      }
    }
    assert.ok(theirs.size > 20);
    assert.deepEqual(theirs, ours);
  });

  it('counts N requests as N, by route and status, on both listeners', async () => {
    const value = (text: string, labels: Record<string, string>) => {
      const family = checkFamilies(text).get('ambit_relay_http_requests_total');
      const sample = family?.metrics.find((candidate) => {
        const found = candidate.labels ?? {};
        return (
          Object.keys(found).length === Object.keys(labels).length &&
          Object.entries(labels).every(([name, wanted]) => found[name] === wanted)
        );
      });
      return sample === undefined ? 0 : Number(sample.value);
    };
    const before = await scrape();
    for (let i = 0; i < 7; i++) await h.get('/v1/datasets/people');
    for (let i = 0; i < 4; i++) await h.get('/v1/datasets/people', 'metrics_only');
    for (let i = 0; i < 5; i++) await admin('/admin/v1/capabilities', 'ops_only');
    for (let i = 0; i < 3; i++) await admin('/admin/v1/capabilities', 'metrics_only');
    for (let i = 0; i < 2; i++) await admin('/admin/v1/capabilities');
    const now = await scrape();
    const delta = (labels: Record<string, string>) => value(now, labels) - value(before, labels);
    const dataset = { method: 'GET', route: '/v1/datasets/:dataset_id' };
    assert.equal(delta({ ...dataset, status: '200' }), 7);
    assert.equal(delta({ ...dataset, status: '403' }), 4);
    const capabilities = { method: 'GET', route: '/admin/v1/capabilities', listener: 'admin' };
    assert.equal(delta({ ...capabilities, status: '200' }), 5);
    assert.equal(delta({ ...capabilities, status: '403' }), 3);
    assert.equal(delta({ ...capabilities, status: '401' }), 2);
    // The first scrape, counted once it was answered.
    assert.equal(delta({ method: 'GET', route: '/metrics', listener: 'admin', status: '200' }), 1);
  });
});

describe('rendered families, read by an independent parser', () => {
  it('escapes label values and HELP text so that they read back as they were', async () => {
    const odd = 'a "quoted" \\ back\\slash\nnew line, comma=} é';
    const text = await renderPrometheus([
      [
        counterFamily('t_total', 'Help with a \\ backslash\nand a new line.', [
          { labels: { value: odd }, value: 2 },
        ]),
        gaugeFamily('g', 'G.', [{ labels: { value: 'plain' }, value: 1 }]),
      ],
    ]);
    const [counter, gauge] = parsePrometheusTextFormat(text);
    assert.equal(counter?.help, 'Help with a \\ backslash\nand a new line.');
    assert.deepEqual(counter?.metrics, [{ labels: { value: odd }, value: '2' }]);
    assert.deepEqual(gauge?.metrics, [{ labels: { value: 'plain' }, value: '1' }]);
  });

  it('keeps the live-scan and load histograms consistent, summed over two processes', async () => {
    const config = {
      datasets: [
        {
          id: 'd',
          tables: [
            { id: 'snap', source: { type: 'file' } },
            { id: 'live', source: { type: 'postgres' }, materialization: 'live' },
          ],
        },
      ],
    } as unknown as RelayConfig;
    const state = { generation: undefined, readiness: { total: 2, loaded: 0, failed: 0 } };
    const processes = [0, 1].map((seed) => {
      const metrics = createRelayMetrics(config);
      const live = metrics.table('d', 'live');
      for (const [i, outcome] of (['ok', 'timeout', 'abandoned', 'ok'] as const).entries()) {
        live.recordLiveScan({
          outcome,
          durationMs: 0.3 * 10 ** i + seed,
          waitMs: i * 7,
          rows: i,
          bytes: 10 * i,
        });
      }
      metrics.table('d', 'snap').recordLoad(seed === 0 ? 'ok' : 'failed', 40_000 * seed + 3);
      return metrics.families(state);
    });
    const text = await renderPrometheus(processes);
    const families = checkFamilies(text);
    const series = checkHistograms(text, histogramNames(families));
    const count = (name: string) => [...series].find(([key]) => key.startsWith(name))?.[1].count;
    // Abandoned reads never ran: their wait counts, their query time does not.
    assert.equal(count('ambit_relay_datasource_live_scan_wait_seconds'), 8);
    assert.equal(count('ambit_relay_datasource_live_scan_duration_seconds'), 6);
    const loads = [...series].filter(([key]) => key.startsWith('ambit_relay_source_load_duration_seconds'));
    assert.deepEqual(
      loads.map(([, found]) => found.count),
      [2, 0],
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  boundsMs,
  counterFamily,
  createHistogram,
  gaugeFamily,
  histogramFamily,
  histogramSamples,
  observe,
} from './metric-family.ts';
import { renderPrometheus } from './render-prometheus.ts';

describe('histograms', () => {
  it('put each observation in the first bucket whose bound it does not exceed, and overflow in +Inf', () => {
    const buckets = [0.001, 0.01];
    const histogram = createHistogram(buckets);
    const bounds = boundsMs(buckets);
    for (const ms of [0.5, 1, 1.5, 10, 250]) observe(histogram, bounds, ms);
    const samples = histogramSamples('t', { route: '/r' }, histogram, buckets);
    assert.deepEqual(
      samples.map((sample) => [sample.metricName, sample.labels.le, sample.value]),
      [
        ['t_bucket', 0.001, 2],
        ['t_bucket', 0.01, 4],
        ['t_bucket', '+Inf', 5],
        ['t_sum', undefined, 0.263],
        ['t_count', undefined, 5],
      ],
    );
  });
});

describe('renderPrometheus', () => {
  it('renders text format 0.0.4 with HELP, TYPE and escaped label values (quote, backslash, newline)', async () => {
    const text = await renderPrometheus([
      [counterFamily('c_total', 'Things.', [{ labels: { route: '/a "b"\\c\nd' }, value: 3 }])],
    ]);
    assert.equal(
      text,
      '# HELP c_total Things.\n# TYPE c_total counter\nc_total{route="/a \\"b\\"\\\\c\\nd"} 3\n',
    );
  });

  it('combines processes: counters and histograms add up, gauges by their aggregator', async () => {
    const histogram = createHistogram([1]);
    observe(histogram, boundsMs([1]), 5);
    const process = (ready: number, failed: number) => [
      counterFamily('c_total', 'C.', [{ labels: { status: 200 }, value: 2 }]),
      gaugeFamily('ready', 'R.', [{ labels: {}, value: ready }], 'min'),
      gaugeFamily('failed', 'F.', [{ labels: {}, value: failed }], 'max'),
      gaugeFamily('processes', 'P.', [{ labels: {}, value: 1 }]),
      histogramFamily('h', 'H.', histogramSamples('h', {}, histogram, [1])),
    ];
    const text = await renderPrometheus([process(1, 0), process(0, 2)]);
    assert.match(text, /^c_total\{status="200"\} 4$/m);
    assert.match(text, /^ready 0$/m);
    assert.match(text, /^failed 2$/m);
    assert.match(text, /^processes 2$/m);
    assert.match(text, /^h_bucket\{le="1"\} 2$/m);
    assert.match(text, /^h_count 2$/m);
  });
});

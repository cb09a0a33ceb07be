// The strict exposition reader refuses what a scraper could misread, so tests that use it catch those mistakes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePrometheusText } from './parse-prometheus-text.ts';

const HISTOGRAM = (b1: number, b2: number, inf: number, count: number) =>
  `# HELP h H.\n# TYPE h histogram\nh_bucket{le="1"} ${b1}\nh_bucket{le="2"} ${b2}\nh_bucket{le="+Inf"} ${inf}\nh_sum 3\nh_count ${count}\n`;

describe('parsePrometheusText', () => {
  it('reads families, escaped label values and histograms', () => {
    const text = `# HELP c C \\\\ with\\nnewline.\n# TYPE c counter\nc{route="/a \\"b\\"\\\\c\\nd"} 3\n\n${HISTOGRAM(1, 2, 2, 2)}`;
    const families = parsePrometheusText(text);
    assert.equal(families.get('c')?.help, 'C \\ with\nnewline.');
    assert.equal(families.get('c')?.samples[0]?.labels.route, '/a "b"\\c\nd');
    assert.equal(families.get('h')?.samples.length, 5);
  });

  it('refuses buckets that go down, a +Inf bucket other than the count, and a missing +Inf', () => {
    assert.throws(() => parsePrometheusText(HISTOGRAM(2, 1, 2, 2)), /not cumulative/);
    assert.throws(() => parsePrometheusText(HISTOGRAM(1, 2, 2, 3)), /!= count/);
    assert.throws(
      () => parsePrometheusText('# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'),
      /not \+Inf/,
    );
  });

  it('refuses a bad escape, a repeated series, a split family and a late TYPE', () => {
    assert.throws(() => parsePrometheusText('c{a="\\x"} 1\n'), /bad escape/);
    assert.throws(() => parsePrometheusText('c{a="1"} 1\nc{a="1"} 2\n'), /appears twice/);
    assert.throws(() => parsePrometheusText('# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na 2\n'), /split/);
    assert.throws(() => parsePrometheusText('a 1\n# TYPE a gauge\n'), /after its samples/);
    assert.throws(() => parsePrometheusText('a 1'), /newline/);
  });
});

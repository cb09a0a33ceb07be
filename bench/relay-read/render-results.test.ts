// Tests for the bench summaries: medians, per-round paired ratios, target checks and the printed table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BenchResults,
  type MeasuredRun,
  median,
  parquetMet,
  renderResults,
  type ScenarioResult,
  summarizeScenario,
} from './render-results.ts';

const run = (round: number, target: 'relay' | 'bare', rps: number, instructions?: number): MeasuredRun => ({
  round,
  target,
  rps,
  requests: rps * 5,
  latencyP50Ms: 1,
  latencyP99Ms: 2,
  cpuUsPerRequest: 1_000_000 / rps,
  instructionsPerRequest: instructions,
});

const scenario = (runs: MeasuredRun[], targetRatio = 0.5): ScenarioResult => ({
  name: 'eq-10-rows',
  description: 'test',
  path: '/x',
  status: 200,
  bodyBytes: 2000,
  targetRatio,
  runs,
});

describe('median', () => {
  it('takes the middle value, or the mean of the two middle values', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.ok(Number.isNaN(median([])));
  });
});

describe('summarizeScenario', () => {
  it('pairs relay and bare runs by round and takes the median ratio', () => {
    // Round 2 is slow for both sides: the paired ratio stays put while raw throughput swings.
    const summary = summarizeScenario(
      scenario([
        run(1, 'relay', 600),
        run(1, 'bare', 1000),
        run(2, 'bare', 400),
        run(2, 'relay', 240),
        run(3, 'relay', 300),
        run(3, 'bare', 1000),
      ]),
    );
    assert.deepEqual(summary.ratios, [0.6, 0.6, 0.3]);
    assert.equal(summary.ratio, 0.6);
    assert.equal(summary.relayRps, 300);
    assert.equal(summary.bareRps, 1000);
    assert.equal(summary.met, true);
    assert.equal(summary.relayInstructionsPerRequest, undefined);
    // CPU per request is 1e6/rps in these fixtures: medians 1e6/300 (relay) and 1e6/1000 (bare).
    assert.ok(Math.abs(summary.cpuRatio - 0.3) < 1e-9);
  });

  it('misses the target below the ratio and reports median instructions when counted', () => {
    const summary = summarizeScenario(
      scenario([run(1, 'relay', 100, 900_000), run(1, 'bare', 1000, 150_000)], 0.4),
    );
    assert.equal(summary.met, false);
    assert.equal(summary.relayInstructionsPerRequest, 900_000);
    assert.equal(summary.bareInstructionsPerRequest, 150_000);
  });
});

describe('renderResults', () => {
  const results: BenchResults = {
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:05:00.000Z',
    machine: {
      node: 'v20',
      cpus: 2,
      cpuModel: 'test',
      loadAverages: [1, 3, 2],
      instructionsCountable: false,
    },
    method: { rounds: 1, warmupS: 2, durationS: 5, connections: 10, profiled: false },
    scenarios: [scenario([run(1, 'relay', 200), run(1, 'bare', 1000)])],
    parquet: {
      rows: 1_000_000,
      columns: 7,
      fileBytes: 24e6,
      runs: [{ readyMs: 6000, loadMs: 4000, sinceProcessStartMs: 5500, rssBytes: 400e6, heapUsedBytes: 1e8 }],
      targetReadyMs: 5000,
      targetRssBytes: 500e6,
    },
  };

  it('prints the ratio, the verdict and the load average range', () => {
    const text = renderResults(results);
    assert.match(text, /load average 1\.00–3\.00, median 2\.00/);
    assert.match(
      text,
      /\| eq-10-rows \| 2000 \| 200 \| 1,000 \| \*\*20%\*\* \(20%\) \| ≥ 50% \| NO \| 5000\.0 \/ 1000\.0 \| 20% \| n\/a \/ n\/a \|/,
    );
    assert.match(text, /ready ≤ 5 s \(median; MISSED\)/);
    assert.match(text, /RSS ≤ 500 MB \(worst run; met\)/);
  });

  it('checks the Parquet targets against the median ready time and the worst RSS', () => {
    assert.deepEqual(parquetMet(results.parquet as NonNullable<BenchResults['parquet']>), {
      ready: false,
      rss: true,
    });
  });
});

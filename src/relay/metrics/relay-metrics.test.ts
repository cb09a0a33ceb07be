import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderPrometheus } from '../../platform/metrics/render-prometheus.ts';
import type { RelayConfig } from '../config/schema.ts';
import type { RelayState } from '../relay-state.ts';
import { createRelayMetrics } from './relay-metrics.ts';

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

const state: RelayState = { generation: undefined, readiness: { total: 2, loaded: 0, failed: 0 } };

async function scrape(metrics: ReturnType<typeof createRelayMetrics>): Promise<string> {
  return renderPrometheus([metrics.families(state)]);
}

describe('relay metrics before anything happened', () => {
  it('has the failed-reload series at 0, so an alert on their increase sees the first failure', async () => {
    const text = await scrape(createRelayMetrics(config));
    assert.match(text, /^ambit_relay_reloads_total\{scope="all",trigger="startup",outcome="failed"\} 0$/m);
    assert.match(text, /^ambit_relay_reloads_total\{scope="all",trigger="admin",outcome="failed"\} 0$/m);
    assert.match(text, /^ambit_relay_reloads_total\{scope="table",trigger="mtime",outcome="failed"\} 0$/m);
    // A table reload never runs at startup: no series that can never move.
    assert.doesNotMatch(text, /scope="table",trigger="startup"/);
  });

  it('counts into the declared series once reloads run', async () => {
    const metrics = createRelayMetrics(config);
    metrics.recordReload('table', 'mtime', 'failed');
    metrics.recordReload('table', 'mtime', 'failed');
    const text = await scrape(metrics);
    assert.match(text, /^ambit_relay_reloads_total\{scope="table",trigger="mtime",outcome="failed"\} 2$/m);
    assert.equal(text.match(/trigger="mtime",outcome="failed"/g)?.length, 2, 'one series per scope');
  });

  it('has the live-scan series of a live table at 0 before its first scan, and none for a snapshot', async () => {
    const text = await scrape(createRelayMetrics(config));
    assert.match(
      text,
      /^ambit_relay_datasource_live_scans_total\{dataset="d",table="live",outcome="failed"\} 0$/m,
    );
    assert.match(
      text,
      /^ambit_relay_datasource_live_scans_total\{dataset="d",table="live",outcome="row_invalid"\} 0$/m,
    );
    assert.match(
      text,
      /^ambit_relay_datasource_live_scan_duration_seconds_count\{dataset="d",table="live"\} 0$/m,
    );
    assert.doesNotMatch(text, /live_scan[a-z_]*\{dataset="d",table="snap"/);
  });

  it('explains every live-scan outcome it reports in the family help', async () => {
    const text = await scrape(createRelayMetrics(config));
    const help = /^# HELP ambit_relay_datasource_live_scans_total (.*)$/m.exec(text)?.[1] ?? '';
    const outcomes = [
      ...text.matchAll(/^ambit_relay_datasource_live_scans_total\{[^}]*outcome="([a-z_]+)"\}/gm),
    ];
    assert.equal(outcomes.length, 7);
    for (const [, outcome] of outcomes) assert.match(help, new RegExp(`\\b${outcome}\\b`), outcome);
  });

  it('tells a live read that timed out from one whose database was away, and from one it refused', async () => {
    const metrics = createRelayMetrics(config);
    const scan = { waitMs: 0, durationMs: 1, rows: 0, bytes: 0 };
    for (const outcome of ['timeout', 'timeout', 'unavailable', 'failed'] as const)
      metrics.table('d', 'live').recordLiveScan({ ...scan, outcome });
    const text = await scrape(metrics);
    const count = (outcome: string) =>
      new RegExp(
        `^ambit_relay_datasource_live_scans_total\\{dataset="d",table="live",outcome="${outcome}"\\} (\\d+)$`,
        'm',
      ).exec(text)?.[1];
    assert.deepEqual(['timeout', 'unavailable', 'failed', 'ok'].map(count), ['2', '1', '1', '0']);
  });

  it('counts a read dropped before it was sent under abandoned, with its wait but no query time', async () => {
    const metrics = createRelayMetrics(config);
    metrics
      .table('d', 'live')
      .recordLiveScan({ outcome: 'abandoned', waitMs: 40, durationMs: 0, rows: 0, bytes: 0 });
    const text = await scrape(metrics);
    assert.match(
      text,
      /^ambit_relay_datasource_live_scans_total\{dataset="d",table="live",outcome="abandoned"\} 1$/m,
    );
    assert.match(
      text,
      /^ambit_relay_datasource_live_scan_wait_seconds_count\{dataset="d",table="live"\} 1$/m,
    );
    assert.match(
      text,
      /^ambit_relay_datasource_live_scan_duration_seconds_count\{dataset="d",table="live"\} 0$/m,
    );
  });

  it('reports a snapshot table current only once it loaded, keeps the later of two times, and a live table never', async () => {
    const metrics = createRelayMetrics(config);
    assert.doesNotMatch(await scrape(metrics), /source_current_timestamp_seconds\{/);
    metrics.table('d', 'snap').recordCurrent(2_000_000);
    metrics.table('d', 'snap').recordCurrent(1_000_000); // a poll that started before the load ended
    const text = await scrape(metrics);
    assert.match(text, /^ambit_relay_source_current_timestamp_seconds\{dataset="d",table="snap"\} 2000$/m);
    assert.doesNotMatch(text, /source_current_timestamp_seconds\{dataset="d",table="live"/);
  });

  it('counts a live scan whose row does not fit the schema under row_invalid, not ok', async () => {
    const metrics = createRelayMetrics(config);
    const scan = { durationMs: 2, waitMs: 0, rows: 1, bytes: 4 };
    metrics.table('d', 'live').recordLiveScan({ ...scan, outcome: 'row_invalid' });
    metrics.table('d', 'live').recordLiveScan({ ...scan, outcome: 'ok' });
    const text = await scrape(metrics);
    assert.match(text, /^ambit_relay_datasource_live_scans_total\{[^}]*outcome="row_invalid"\} 1$/m);
    assert.match(text, /^ambit_relay_datasource_live_scans_total\{[^}]*outcome="ok"\} 1$/m);
    assert.match(text, /^ambit_relay_datasource_live_scans_total\{[^}]*outcome="failed"\} 0$/m);
  });

  it("counts a filter value the database refused (the caller's mistake) under invalid_input, not failed", async () => {
    const metrics = createRelayMetrics(config);
    assert.match(
      await scrape(metrics),
      /^ambit_relay_datasource_live_scans_total\{[^}]*outcome="invalid_input"\} 0$/m,
    );
    metrics
      .table('d', 'live')
      .recordLiveScan({ durationMs: 1, waitMs: 0, rows: 0, bytes: 0, outcome: 'invalid_input' });
    const text = await scrape(metrics);
    assert.match(text, /^ambit_relay_datasource_live_scans_total\{[^}]*outcome="invalid_input"\} 1$/m);
    assert.match(text, /^ambit_relay_datasource_live_scans_total\{[^}]*outcome="failed"\} 0$/m);
  });
});

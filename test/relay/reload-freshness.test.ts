// The per-table "current" time: when the snapshot served last matched its source. An operator alerts on its age to
// tell a source that did not change (polled, found unchanged: the time moves) from a refresh that stalled or keeps
// failing (the time stays).
import assert from 'node:assert/strict';
import { rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { closeHarness, type Harness, peopleCsv, startHarness } from './reload-fixture.ts';

const START = '2026-03-01T10:00:00.000Z';
const startSeconds = Date.parse(START) / 1000;

describe('ambit_relay_source_current_timestamp_seconds', () => {
  const clock = fixedClock(START);
  let h: Harness;
  before(async () => {
    h = await startHarness({}, clock);
    // Written out well before the first tick: an interval tick leaves a file modified moments ago for the next.
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(h.fixture.dir, 'districts.csv'), past, past);
  });
  after(() => closeHarness(h));

  const current = (table: string) =>
    h.metric(
      new RegExp(`^ambit_relay_source_current_timestamp_seconds\\{dataset="people",table="${table}"\\} `),
    );

  it('is the time of the startup load for every snapshot table', async () => {
    assert.equal(await current('people_table'), startSeconds);
    assert.equal(await current('district_table'), startSeconds);
  });

  it('moves when a poll finds the source unchanged, without a reload', async () => {
    clock.advance(60_000);
    await h.relay.refresh.runOnce();
    assert.equal(await current('people_table'), startSeconds + 60);
    // The interval table reloads on every round: its load is the confirmation.
    assert.equal(await current('district_table'), startSeconds + 60);
    assert.equal(
      await h.metric(/^ambit_relay_reloads_total\{scope="table",trigger="mtime",outcome="ok"\}/),
      0,
      'nothing was reloaded for the unchanged file',
    );
  });

  it('stays where it was while the source cannot be read, and moves again once it loads', async () => {
    rmSync(join(h.fixture.dir, 'people.csv'));
    clock.advance(60_000);
    await h.relay.refresh.runOnce();
    assert.equal(
      await h.metric(/^ambit_relay_reloads_total\{scope="table",trigger="mtime",outcome="failed"\}/),
      1,
    );
    assert.equal(await current('people_table'), startSeconds + 60, 'a failed reload confirms nothing');
    assert.equal(await current('district_table'), startSeconds + 120);

    clock.advance(60_000);
    h.fixture.writePeople(peopleCsv(12, 4));
    // The first poll sees the file change and waits for it to hold still; the second loads it.
    await h.relay.refresh.runOnce();
    assert.equal(await current('people_table'), startSeconds + 60);
    await h.relay.refresh.runOnce();
    assert.equal(await current('people_table'), startSeconds + 180);
  });
});

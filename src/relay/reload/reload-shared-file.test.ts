// Tables read from one file (the sheets of one workbook) are one source: a refresh swaps them in together.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../platform/clock.ts';
import { silentLogger } from '../../platform/log.ts';
import type { RelayConfig, TableConfig } from '../config/schema.ts';
import { createRelayMetrics } from '../metrics/relay-metrics.ts';
import type { RelayState } from '../relay-state.ts';
import { SourceError } from '../sources/source-error.ts';
import { stubSnapshot } from './one-table-reloader-test-support.ts';
import { createReloader } from './reloader.ts';

const MTIME = { mode: 'mtime', interval: 1000 };

/** Three sheets of `book.xlsx` (one spelled `./book.xlsx`, one refreshed by hand only) and a CSV of their own. */
const CONFIG = {
  datasets: [
    {
      id: 'd',
      defaults: { refresh: MTIME },
      tables: [
        { id: 'households', source: { type: 'file', path: 'book.xlsx' } },
        { id: 'members', source: { type: 'file', path: './book.xlsx' } },
        {
          id: 'notes',
          source: { type: 'file', path: 'book.xlsx' },
          refresh: { mode: 'manual', interval: 1000 },
        },
        { id: 'other', source: { type: 'file', path: 'other.csv' } },
      ],
    },
  ],
} as unknown as RelayConfig;

/**
 * A reloader over CONFIG whose files hold the version the test sets; `failing` tables fail to load, and `afterLoad`
 * runs once a table's load read its file (a file replaced before the next table reads it).
 */
function workbookReloader() {
  const files: Record<string, string> = { 'book.xlsx': 'v1', 'other.csv': 'v1' };
  const failing = new Set<string>();
  const afterLoad: { run?: (table: string) => void } = {};
  const state: RelayState = { generation: undefined, readiness: { total: 4, loaded: 0, failed: 0 } };
  const fileOf = (table: TableConfig) => (table.source as { path: string }).path.replace('./', '');
  const reloader = createReloader({
    config: CONFIG,
    state,
    clock: fixedClock('2026-01-01T00:00:00Z'),
    logger: silentLogger(),
    metrics: createRelayMetrics(CONFIG),
    loadTable: async (_dataset, table) => {
      if (failing.has(table.id))
        throw new SourceError({ tableId: table.id, code: 'ingest.missing_column', detail: 'no column' });
      const snapshot = stubSnapshot(files[fileOf(table)] as string);
      afterLoad.run?.(table.id);
      return snapshot;
    },
    changeToken: (_dataset, table) => ({ changeToken: async () => `token-${files[fileOf(table)]}` }),
    fileToken: (_dataset, table) => ({ changeToken: async () => `token-${files[fileOf(table)]}` }),
  });
  const version = (table: string) => state.generation?.table('d', table).version;
  return { reloader, files, failing, afterLoad, version };
}

describe('a refresh of a table read from a file other tables read too', () => {
  it('reloads every table of that file refreshed on its own, and swaps them in together', async () => {
    const { reloader, files, version } = workbookReloader();
    await reloader.load();
    files['book.xlsx'] = 'v2';
    files['other.csv'] = 'v2';
    const outcome = await reloader.reloadTable('d', 'households', 'mtime');
    assert.equal(outcome.ok, true);
    assert.equal(version('households'), 'v2');
    assert.equal(version('members'), 'v2', 'the other sheet of the workbook is not left at the old version');
    assert.equal(version('notes'), 'v1', 'a manual table reloads only when an operator asks');
    assert.equal(version('other'), 'v1', 'another file is not read');
    // The other sheet's own poll then finds its source as loaded: no second load.
    assert.equal(reloader.confirmUnchanged('d', 'members', 'token-v2', Date.now()), true);
  });

  it('swaps in none of them when one fails to load', async () => {
    const { reloader, files, failing, version } = workbookReloader();
    await reloader.load();
    files['book.xlsx'] = 'v2';
    failing.add('members');
    const outcome = await reloader.reloadTable('d', 'households', 'interval');
    assert.equal(outcome.ok, false);
    assert.deepEqual(
      outcome.failures.map((failure) => failure.table_id),
      ['members'],
    );
    assert.equal(version('households'), 'v1');
    assert.equal(version('members'), 'v1');
  });
});

describe('a file replaced while the tables read from it load one after another', () => {
  it('swaps in none of them rather than sheets of two versions, and loads them together at the next poll', async () => {
    const { reloader, files, afterLoad, version } = workbookReloader();
    await reloader.load();
    files['book.xlsx'] = 'v2';
    afterLoad.run = (table) => {
      if (table === 'households') files['book.xlsx'] = 'v3';
    };
    const outcome = await reloader.reloadTable('d', 'households', 'mtime');
    assert.equal(outcome.ok, false);
    assert.deepEqual(
      outcome.failures.map((failure) => [failure.table_id, failure.code]),
      [
        ['households', 'ingest.file_changed'],
        ['members', 'ingest.file_changed'],
      ],
    );
    assert.equal(version('households'), 'v1', 'the previous data is still served');
    assert.equal(version('members'), 'v1');
    afterLoad.run = undefined;
    assert.equal((await reloader.reloadTable('d', 'households', 'mtime')).ok, true);
    assert.equal(version('households'), 'v3');
    assert.equal(version('members'), 'v3');
  });

  it('fails a reload of every table too, keeping the previous generation', async () => {
    const { reloader, files, afterLoad, version } = workbookReloader();
    await reloader.load();
    files['book.xlsx'] = 'v2';
    afterLoad.run = (table) => {
      if (table === 'households') files['book.xlsx'] = 'v3';
    };
    const outcome = await reloader.reloadAll('admin');
    assert.equal(outcome.ok, false);
    assert.deepEqual(
      outcome.failures.map((failure) => failure.code),
      ['ingest.file_changed', 'ingest.file_changed', 'ingest.file_changed'],
      'every table read from the workbook, the manual one too',
    );
    assert.equal(version('households'), 'v1');
    assert.equal(version('members'), 'v1');
    assert.equal(version('notes'), 'v1');
  });

  it('reloads a table asked for alone whatever its file does meanwhile', async () => {
    const { reloader, files, afterLoad, version } = workbookReloader();
    await reloader.load();
    files['book.xlsx'] = 'v2';
    afterLoad.run = () => {
      files['book.xlsx'] = 'v3';
    };
    const outcome = await reloader.reloadTable('d', 'members', 'admin');
    assert.equal(outcome.ok, true, 'its own load checks its file; there is no other table to match');
    assert.equal(version('members'), 'v2');
  });
});

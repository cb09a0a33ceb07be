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

/** A reloader over CONFIG whose files hold the version the test sets; `failing` tables fail to load. */
function workbookReloader() {
  const files: Record<string, string> = { 'book.xlsx': 'v1', 'other.csv': 'v1' };
  const failing = new Set<string>();
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
      return stubSnapshot(files[fileOf(table)] as string);
    },
    changeToken: (_dataset, table) => ({ changeToken: async () => `token-${files[fileOf(table)]}` }),
  });
  const version = (table: string) => state.generation?.table('d', table).version;
  return { reloader, files, failing, version };
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

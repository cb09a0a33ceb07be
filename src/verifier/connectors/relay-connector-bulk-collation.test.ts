// Bulk reads from a source comparing its lookup field by a collation that ignores case and accents (ICU's root
// collation at base strength, as a PostgreSQL nondeterministic `und-u-ks-level1` collation compares): each subject
// gets what its single read gets, even where the letters differ by more than a combining accent (`ø` and `o`).
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { isProblem } from '../../platform/problem/problem.ts';
import { createBatchReader } from './create-batch-reader.ts';
import { auditCodeOf } from './failure-reason.ts';
import { json, LOOKUP, useConnectorUpstream } from './relay-connector-fixture.ts';
import type { SourceRecord } from './source-reader.ts';

const BASE = new Intl.Collator('und', { sensitivity: 'base' });
const HELD = ['Søren', 'Soren', 'Łukasz', 'Æsa', 'Đorđe', 'Ida'];

function collatingTable(request: IncomingMessage, response: ServerResponse): void {
  const query = new URL(request.url ?? '', 'http://x').searchParams;
  const asked = query.get('national_id.in')?.split(',') ?? [query.get('national_id') ?? ''];
  const data = HELD.flatMap((id, row) =>
    asked.some((value) => BASE.compare(value, id) === 0) ? [{ national_id: id, row }] : [],
  );
  json(response, 200, { data, pagination: { has_more: false } });
}

describe('registry_data_api connector: bulk reads of a source ignoring case and accents', () => {
  const upstream = useConnectorUpstream();
  const outcome = (read: Promise<SourceRecord>) =>
    read.then(
      (record) => `row ${String(record.row.row)}`,
      (error: unknown) => (isProblem(error) ? `${error.code} ${auditCodeOf(error)}` : String(error)),
    );

  it("gives every subject of a batch its single read's answer", async () => {
    upstream.handler = collatingTable;
    const reader = upstream.connector({ bulk_mode: 'rda_in_filter' });
    const values = [...HELD, 'SOREN', 'Lukasz', 'Aesa', 'AESA', 'Dorde', 'IDA', 'Other'];
    const lookups = values.map((value) => ({ ...LOOKUP, value }));
    const batch = createBatchReader(reader);
    batch.prefetch(lookups);
    const batched = await Promise.all(lookups.map((lookup) => outcome(batch.read(lookup))));
    const singles: string[] = [];
    for (const lookup of lookups) singles.push(await outcome(reader.read(lookup)));
    reader.close();
    assert.deepEqual(batched, singles);
    // `Søren` and `Soren` are two records to this source, for either spelling.
    assert.equal(batched[0], 'evidence.not_available target.match_ambiguous');
    assert.equal(batched[values.indexOf('Lukasz')], 'row 2');
  });
});

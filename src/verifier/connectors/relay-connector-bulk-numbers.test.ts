// Bulk reads of a lookup field the source answers as JSON numbers: a number past a double's precision reads as
// the double nearest it, which another value asked in the same `.in` list may spell.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nationalIdTable } from '../../../test/helpers/fake-relay-table.ts';
import type { Problem } from '../../platform/problem/problem.ts';
import { createBatchReader } from './create-batch-reader.ts';
import { auditCodeOf } from './failure-reason.ts';
import { BINDING, failure, LOOKUP, useConnectorUpstream } from './relay-connector-fixture.ts';

/** A source comparing its numbers exactly and writing them out in full (a 64-bit integer or decimal column). */
const exactNumbers = (...ids: string[]) =>
  nationalIdTable(
    ids.map((id, index) => ({
      national_id: id,
      raw: `{"national_id":${id},"deceased":false,"row":${index}}`,
    })),
  );

describe('registry_data_api connector: bulk reads of numbers past a double', () => {
  const upstream = useConnectorUpstream();
  const BULK = { binding: BINDING, purpose: 'https://p.example/x', requestId: 'corr-b' };
  const summary = (settled: Map<string, { record: unknown } | { problem: Problem }>) =>
    Object.fromEntries(
      [...settled].map(([value, out]) => [value, 'record' in out ? 'record' : auditCodeOf(out.problem)]),
    );

  it('never settles a value with the row of another number asked that reads as the same double', async () => {
    const reader = upstream.connector({ bulk_mode: 'rda_in_filter' });
    // Only the second is held: its row reads as 9007199254740992, the first value's text.
    upstream.handler = exactNumbers('9007199254740993');
    const integers = await reader.readMany({ ...BULK, values: ['9007199254740992', '9007199254740993'] });
    upstream.handler = exactNumbers('0.10000000000000000001');
    const decimals = await reader.readMany({ ...BULK, values: ['0.1', '0.10000000000000000001', '5'] });
    // Both held: one record each, not two for the first.
    upstream.handler = exactNumbers('9007199254740992', '9007199254740993');
    const both = await reader.readMany({ ...BULK, values: ['9007199254740992', '9007199254740993'] });
    reader.close();
    assert.deepEqual(summary(integers), {});
    assert.deepEqual(summary(decimals), {});
    assert.deepEqual(summary(both), {});
  });

  it("gives each subject of a batch its single read's answer, not the row of a number next to it", async () => {
    const reader = upstream.connector({ bulk_mode: 'rda_in_filter' });
    upstream.handler = exactNumbers('9007199254740993', '12');
    const batch = createBatchReader(reader);
    const lookups = ['9007199254740992', '9007199254740993', '12'].map((value) => ({ ...LOOKUP, value }));
    batch.prefetch(lookups);
    const [absent, held, plain] = lookups.map((lookup) => batch.read(lookup));
    const problem = await failure(absent as Promise<unknown>);
    assert.equal(auditCodeOf(problem), 'target.not_found');
    assert.equal((await held)?.row.row, 0);
    assert.equal((await plain)?.row.row, 1);
    reader.close();
  });

  it('still settles numbers that are one number however they are spelled', async () => {
    const reader = upstream.connector({ bulk_mode: 'rda_in_filter' });
    upstream.handler = exactNumbers('7');
    const settled = await reader.readMany({ ...BULK, values: ['7', '007', '7.0', '8'] });
    reader.close();
    // 7, 007 and 7.0 are one number: the row answered as 7 is the record of `7`, whichever matched it.
    assert.deepEqual(summary(settled), { '7': 'record' });
  });
});

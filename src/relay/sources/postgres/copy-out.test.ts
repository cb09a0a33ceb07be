import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceError } from '../source-error.ts';
import { COPY_BATCH_BYTES, CopyOut, LARGE_ROW_BYTES } from './copy-out.ts';
import { isSourceUnavailable, postgresLoadError } from './postgres-load-error.ts';

/** The error `batches()` rejects with once the answer has ended. */
async function failureOf(copy: CopyOut): Promise<unknown> {
  try {
    for await (const _batch of copy.batches());
  } catch (error) {
    return error;
  }
  assert.fail('the COPY answer was decoded');
}

describe('CopyOut', () => {
  it('a row it cannot decode fails the load as a load failure, not as an unreachable database', async () => {
    const copy = new CopyOut('COPY (SELECT 1) TO STDOUT', ['integer'], () => {});
    copy.handleCopyData({ chunk: Buffer.from('1\t2\n') });
    copy.handleReadyForQuery();
    const error = postgresLoadError('people', await failureOf(copy));
    // An unreachable database is waited for at startup, and this row would be read (and refused) forever.
    assert.equal(isSourceUnavailable(error), false);
    assert.equal(error.code, 'ingest.load_failed');
    assert.match(error.detail, /could not be decoded/);
  });

  it('hands wide rows over in batches of a few MiB, so the heap is checked between them', async () => {
    const copy = new CopyOut('COPY (SELECT 1) TO STDOUT', ['string'], () => {});
    const row = Buffer.alloc(100 * 1024, 97);
    row[row.length - 1] = 10;
    const rows = 200;
    for (let i = 0; i < rows; i++) copy.handleCopyData({ chunk: row });
    copy.handleCommandComplete();
    copy.handleReadyForQuery();
    const sizes: number[] = [];
    for await (const batch of copy.batches()) sizes.push(batch.rowCount);
    assert.equal(
      sizes.reduce((a, b) => a + b, 0),
      rows,
    );
    for (const size of sizes) assert.ok(size * row.length <= COPY_BATCH_BYTES + row.length, String(sizes));
  });

  it('checks a large row against the heap before decoding it, counting two bytes a character unless ASCII', async () => {
    const asked: number[] = [];
    const copy = new CopyOut('COPY (SELECT 1) TO STDOUT', ['string'], (incoming = 0) => {
      asked.push(incoming);
      if (incoming > 3 * LARGE_ROW_BYTES) {
        throw new SourceError({ tableId: 'people', code: 'ingest.memory_limit', detail: 'no room' });
      }
    });
    copy.handleCopyData({ chunk: Buffer.from('small\n') });
    copy.handleCopyData({ chunk: Buffer.alloc(2 * LARGE_ROW_BYTES, 97) });
    copy.handleCopyData({ chunk: Buffer.alloc(2 * LARGE_ROW_BYTES, 0xc3) });
    copy.handleReadyForQuery();
    assert.deepEqual(asked, [2 * LARGE_ROW_BYTES, 4 * LARGE_ROW_BYTES]);
    const error = postgresLoadError('people', await failureOf(copy));
    assert.equal(error.code, 'ingest.memory_limit');
  });
});

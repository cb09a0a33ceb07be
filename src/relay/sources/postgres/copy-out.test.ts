import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CopyOut } from './copy-out.ts';
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
    const copy = new CopyOut('COPY (SELECT 1) TO STDOUT', ['integer']);
    copy.handleCopyData({ chunk: Buffer.from('1\t2\n') });
    copy.handleReadyForQuery();
    const error = postgresLoadError('people', await failureOf(copy));
    // An unreachable database is waited for at startup, and this row would be read (and refused) forever.
    assert.equal(isSourceUnavailable(error), false);
    assert.equal(error.code, 'ingest.load_failed');
    assert.match(error.detail, /could not be decoded/);
  });
});

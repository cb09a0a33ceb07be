// Shared by the file source tests: every row a source yields, and the SourceError a load fails with.
import assert from 'node:assert/strict';
import type { SourceRows } from './open-file-source.ts';
import { SourceError } from './source-error.ts';

export async function rowsOf(source: SourceRows): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for await (const batch of source.batches) rows.push(...batch);
  return rows;
}

export async function sourceErrorOf(work: () => Promise<unknown>): Promise<SourceError> {
  try {
    await work();
  } catch (error) {
    assert.ok(error instanceof SourceError, `expected a SourceError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a SourceError');
}

// Shared by the file source tests: every row a source yields, and the SourceError a load fails with.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
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

/**
 * Runs `work` against a FIFO at `path` while a writer waits to open it. A reader that blocks on the open meets the
 * writer, which then closes, so such a reader sees an empty stream instead of hanging the test; a reader that does
 * not block leaves the writer waiting, and it is released here by a reader that does not block either.
 */
export async function withWaitingWriter<T>(path: string, work: () => Promise<T>): Promise<T> {
  execFileSync('mkfifo', [path]);
  const writer = open(path, 'w').then((handle) => handle.close());
  try {
    return await work();
  } finally {
    const release = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    await writer;
    await release.close();
  }
}

// The size-checked source file handed to each format reader, plus the checks shared by the readers.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import type { IngestCode } from './ingest-codes.ts';
import { SourceError, type SourceErrorInit } from './source-error.ts';

export interface SourceFile {
  readonly tableId: string;
  readonly absolutePath: string;
  /** The path as written in the config (relative to the config dir): the only form put in messages. */
  readonly displayPath: string;
  readonly byteSize: number;
  /** Which file this is and its state when opened (`fileVersion`): compared again before a second pass. */
  readonly version: string;
}

/**
 * Device, inode, modification and status-change times: another file moved into place has another inode, and a
 * rewrite in place moves the ctime even when a copy sets the old mtime again.
 */
export function fileVersion(stats: { dev: number; ino: number; mtimeMs: number; ctimeMs: number }): string {
  return `${stats.dev}:${stats.ino}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/** Rows per yielded batch: large enough to amortise async overhead, small enough to keep memory flat. */
export const BATCH_ROWS = 4096;

export function sourceError(
  file: SourceFile,
  code: IngestCode,
  detail: string,
  extra: Omit<SourceErrorInit, 'tableId' | 'code' | 'detail'> = {},
): SourceError {
  return new SourceError({ tableId: file.tableId, code, detail, ...extra });
}

/**
 * Readers that read lazily (CSV, Parquet) stat again before the second pass: the header or footer read at open
 * time must describe the bytes being decoded, and the size guard must still hold.
 */
export async function assertUnchanged(file: SourceFile): Promise<void> {
  let now: Awaited<ReturnType<typeof stat>>;
  try {
    now = await stat(file.absolutePath);
  } catch (error) {
    throw fileAccessError(file, error);
  }
  if (now.size !== file.byteSize || fileVersion(now) !== file.version) {
    throw sourceError(file, 'ingest.file_changed', `${file.displayPath} changed while it was being read`);
  }
}

/** The file opened for reading; a file gone or unreadable is the load error its errno says. */
export async function openSourceFile(file: SourceFile): Promise<FileHandle> {
  try {
    return await open(file.absolutePath, 'r');
  } catch (error) {
    throw fileAccessError(file, error);
  }
}

/**
 * SHA-256 (hex) of the file's bytes, streamed. A file removed or made unreadable since it was opened is the load
 * error its errno says; one replaced meanwhile is caught by the readers' own check (`ingest.file_changed`).
 */
export async function hashSourceFile(
  file: Pick<SourceFile, 'tableId' | 'displayPath' | 'absolutePath'>,
): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file.absolutePath, { highWaterMark: 1024 * 1024 }))
      hash.update(chunk as Buffer);
  } catch (error) {
    throw fileAccessError(file, error);
  }
  return hash.digest('hex');
}

/** Maps an fs error to a SourceError; the OS message is left out because it carries the absolute path. */
export function fileAccessError(
  file: Pick<SourceFile, 'tableId' | 'displayPath'>,
  error: unknown,
): SourceError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new SourceError({
      tableId: file.tableId,
      code: 'ingest.file_not_found',
      detail: `${file.displayPath} does not exist`,
    });
  }
  return new SourceError({
    tableId: file.tableId,
    code: 'ingest.file_unreadable',
    detail: `${file.displayPath} cannot be read (${code ?? 'unknown error'})`,
  });
}

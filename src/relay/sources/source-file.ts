// The size-checked source file handed to each format reader, plus the checks shared by the readers.
import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
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
  if (now.size !== file.byteSize || fileVersion(now) !== file.version) throw changed(file);
}

/** How much each positioned read of a source file asks for. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The file opened for reading, checked to be the one the size guard passed (`ingest.file_changed` if not). Opened
 * non-blocking, so a FIFO moved into place is refused rather than waited on (which would also hold every reload
 * queued behind this one); a regular file reads the same either way. A file gone or unreadable is the load error
 * its errno says.
 */
export async function openSourceFile(file: SourceFile): Promise<FileHandle> {
  const { handle, stats } = await openRegularFile(file);
  if (stats.size !== file.byteSize || fileVersion(stats) !== file.version) {
    await handle.close();
    throw changed(file);
  }
  return handle;
}

/**
 * Opens `absolutePath` without blocking and checks the opened file (not the path, which may have been swapped)
 * is a regular file: a directory, FIFO, socket or device is `ingest.file_size_unknown`.
 */
export async function openRegularFile(
  file: Pick<SourceFile, 'tableId' | 'displayPath' | 'absolutePath'>,
): Promise<{ handle: FileHandle; stats: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(file.absolutePath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw fileAccessError(file, error);
  }
  let stats: Stats;
  try {
    stats = await handle.stat();
  } catch (error) {
    await handle.close();
    throw fileAccessError(file, error);
  }
  if (!stats.isFile() || !Number.isSafeInteger(stats.size) || stats.size < 0) {
    await handle.close();
    throw sizeUnknown(file, 'is not a regular file, so its size cannot be checked');
  }
  return { handle, stats };
}

/**
 * Reads the file's `byteSize` bytes from position 0 into `take`, one chunk at a time, then checks nothing follows:
 * never a byte past the size that passed the guard. A file that yields fewer or more bytes, or was written to while
 * it was read, is refused: as `ingest.file_changed` when it changed meanwhile, else as `ingest.file_size_unknown`
 * (a /proc or /sys file, whose reported size is not what it holds).
 */
export async function readSized(
  file: SourceFile,
  handle: FileHandle,
  take: (bytes: Buffer, position: number) => void,
): Promise<void> {
  const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(file.byteSize, 1)));
  let position = 0;
  while (position < file.byteSize) {
    const want = Math.min(chunk.length, file.byteSize - position);
    const { bytesRead } = await handle.read(chunk, 0, want, position);
    if (bytesRead === 0) throw await sizeMismatch(file, handle, 'fewer');
    take(chunk.subarray(0, bytesRead), position);
    position += bytesRead;
  }
  if ((await handle.read(chunk, 0, 1, position)).bytesRead > 0)
    throw await sizeMismatch(file, handle, 'more');
  // Rewritten in place at the same size meanwhile (a copy over it), the bytes read may begin with one file and end
  // with the other: the times say so.
  const now = await handle.stat();
  if (now.size !== file.byteSize || fileVersion(now) !== file.version) throw changed(file);
}

async function sizeMismatch(
  file: SourceFile,
  handle: FileHandle,
  what: 'fewer' | 'more',
): Promise<SourceError> {
  const now = await handle.stat();
  if (now.size !== file.byteSize || fileVersion(now) !== file.version) return changed(file);
  return sizeUnknown(
    file,
    `holds ${what} than the ${file.byteSize} bytes its size says (a file of the /proc or /sys kind), so its size cannot be checked`,
  );
}

/**
 * SHA-256 (hex) of the file's bytes, read from the file the size guard passed and no further than its size then
 * (see readSized); without a size, of the regular file found at the path, up to its own size.
 */
export async function hashSourceFile(
  file: Pick<SourceFile, 'tableId' | 'displayPath' | 'absolutePath'> &
    Partial<Pick<SourceFile, 'byteSize' | 'version'>>,
): Promise<string> {
  let sized: SourceFile;
  let handle: FileHandle;
  if (file.byteSize !== undefined && file.version !== undefined) {
    sized = { ...file, byteSize: file.byteSize, version: file.version };
    handle = await openSourceFile(sized);
  } else {
    const found = await openRegularFile(file);
    handle = found.handle;
    sized = { ...file, byteSize: found.stats.size, version: fileVersion(found.stats) };
  }
  const hash = createHash('sha256');
  try {
    await readSized(sized, handle, (bytes) => hash.update(bytes));
  } catch (error) {
    throw error instanceof SourceError ? error : fileAccessError(file, error);
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

function changed(file: Pick<SourceFile, 'tableId' | 'displayPath'>): SourceError {
  return new SourceError({
    tableId: file.tableId,
    code: 'ingest.file_changed',
    detail: `${file.displayPath} changed while it was being read`,
  });
}

function sizeUnknown(file: Pick<SourceFile, 'tableId' | 'displayPath'>, why: string): SourceError {
  return new SourceError({
    tableId: file.tableId,
    code: 'ingest.file_size_unknown',
    detail: `${file.displayPath} ${why}`,
  });
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

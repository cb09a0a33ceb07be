// Rotating JSONL audit sink: `audit.jsonl` → `.1` → `.2` … when the next line would pass `max_size_mb`.
import { readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../../log.ts';
import { type AppendFile, openAppendFile } from './append-file.ts';
import type { FileAuditSink } from './audit-sink.ts';

export interface RotateOptions {
  readonly max_size_mb: number;
  /** How many rotated files (`.1` … `.max_files`) are kept next to the current one. */
  readonly max_files: number;
}

export const DEFAULT_ROTATE: RotateOptions = { max_size_mb: 100, max_files: 10 };

export function rotatedPath(path: string, index: number): string {
  return `${path}.${index}`;
}

export function createFileSink(
  path: string,
  rotate: RotateOptions = DEFAULT_ROTATE,
  logger?: Logger,
): FileAuditSink {
  const maxBytes = Math.max(1, Math.floor(rotate.max_size_mb * 1024 * 1024));
  const maxFiles = Math.max(1, Math.floor(rotate.max_files));
  // null after a rotation whose reopen failed; the next append retries the open without rotating again.
  let file: AppendFile | null = openAppendFile(path, logger);
  let closed = false;

  const rotateNow = (current: AppendFile): void => {
    // Files past the limit, left by a larger max_files, are dropped too: kept, they would precede a gap in the chain.
    for (const index of rotatedIndexes(path)) {
      if (index > maxFiles) removeIfPresent(rotatedPath(path, index));
    }
    // Renaming onto `.max_files` replaces the oldest file, which is how files beyond the limit are dropped.
    for (let index = maxFiles - 1; index >= 1; index--) {
      renameIfPresent(rotatedPath(path, index), rotatedPath(path, index + 1));
    }
    renameSync(path, rotatedPath(path, 1));
    // The chain continues in memory, so the new file simply starts with the next envelope.
    file = null;
    // Syncing a full file can take long; the rotated file's sync must not hold up the requests being audited.
    current.closeInBackground();
    file = openAppendFile(path, logger);
  };

  return {
    // No file after a reopen failed: nobody else wrote if the path names no file, or an empty one.
    untouched: () => (file === null ? sizeAt(path) === 0 : file.untouched()),
    append(lines) {
      if (closed) throw new Error(`audit file ${path} is closed`);
      const data = Buffer.from(lines, 'utf8');
      let current = file ?? openAppendFile(path, logger);
      file = current;
      // A current file removed or moved away is not rotated (its rename would fail after the older files were
      // shifted, and again on every append, each time dropping the oldest): the path is opened again as a new file.
      current.reopenIfMoved();
      // A line larger than the limit still goes into an empty file rather than rotating forever.
      if (current.size > 0 && current.size + data.length > maxBytes) {
        rotateNow(current);
        current = file as AppendFile;
      }
      current.append(data);
    },
    async close() {
      closed = true;
      file?.close();
      file = null;
    },
  };
}

/** The N of the `<path>.N` files next to `path`, highest (oldest) first; gaps in the numbering are tolerated. */
export function rotatedIndexes(path: string): number[] {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => name.startsWith(prefix) && /^[1-9][0-9]*$/.test(name.slice(prefix.length)))
    .map((name) => Number(name.slice(prefix.length)))
    .sort((a, b) => b - a);
}

/** `<path>.N` files next to `path`, highest number (oldest) first. */
export function rotatedFiles(path: string): string[] {
  return rotatedIndexes(path).map((index) => join(dirname(path), `${basename(path)}.${index}`));
}

/** The size of the file `path` names, 0 when it names none. */
function sizeAt(path: string): number {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

function removeIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

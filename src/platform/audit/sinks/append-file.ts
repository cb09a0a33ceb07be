// An append-only file held open for the process lifetime, with its size tracked in memory; the only per-write
// look at the disk is a stat of its path, which tells whether the path still names the file held open.
import {
  close,
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  statSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../log.ts';
import { bytesWrittenBefore, writeFully } from './write-fully.ts';

export interface AppendFile {
  readonly path: string;
  /** Bytes in the file, counted from the size at open plus every successful append. */
  readonly size: number;
  /**
   * When the path no longer names the file held open (removed: its folder deleted, a cleanup job; or moved away:
   * logrotate without copytruncate), opens the path again, as a new file or the one put in its place, and warns
   * once. Appends to a removed file would succeed and be lost with it; to a moved one, they would land where
   * nobody looks for them. Throws when the path cannot be opened.
   */
  reopenIfMoved(): void;
  /**
   * True when nobody else can have appended since this file's last append: its path names it still at the size
   * counted, or names nothing (another writer would have created it).
   */
  untouched(): boolean;
  append(data: Buffer): void;
  close(): void;
  /** Stops appends now; syncs and closes the file off the event loop (a rotated file: nobody waits for it). */
  closeInBackground(): void;
}

export function openAppendFile(path: string, logger?: Logger): AppendFile {
  let { fd, size, id } = openForAppend(path);
  let closed = false;
  return {
    path,
    get size() {
      return size;
    },
    reopenIfMoved() {
      if (closed) return;
      const named = identityAt(path);
      if (named !== undefined && named === id) return;
      // Link count 0: no name left; else the file lives on under another name.
      const previous = fstatSync(fd).nlink === 0 ? 'removed' : 'moved';
      const reopened = openForAppend(path);
      closeSync(fd);
      ({ fd, size, id } = reopened);
      // Once per move: the next appends find the path naming the new file. The new file's first record links to
      // the last one written to the old file, so it verifies on its own as a continuation.
      logger?.warn(
        { audit_path: path, previous_file: previous, new_file_bytes: size },
        'audit file was removed or moved away while open; writing on in a new file at its path, continuing the chain',
      );
    },
    untouched() {
      if (closed) return true;
      try {
        const named = statSync(path, { bigint: true });
        return `${named.dev}:${named.ino}` === id && Number(named.size) === size;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
        throw error;
      }
    },
    append(data) {
      // Refuse instead of writing to a closed descriptor number that the process may have reused.
      if (closed) throw new Error(`audit file ${path} is closed`);
      try {
        writeFully(fd, data);
      } catch (error) {
        // Cut a partial line off again so the file stays a valid chain for the next append and the next start. The
        // file's size now, not the one counted, less what this write put down: another tool may have truncated
        // the file in place since it was opened, and truncating to the counted size would pad it with zeros.
        try {
          size = Math.max(0, fstatSync(fd).size - bytesWrittenBefore(error));
          ftruncateSync(fd, size);
        } catch {
          // Not every target can be truncated (character devices); the original error is what matters.
        }
        throw error;
      }
      size += data.length;
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        fdatasyncSync(fd);
      } catch {
        // Devices and pipes may not support syncing; closing still releases the descriptor.
      }
      closeSync(fd);
    },
    closeInBackground() {
      if (closed) return;
      closed = true;
      // Devices and pipes may not support syncing; the descriptor is closed either way.
      fdatasync(fd, () => close(fd, () => {}));
    },
  };
}

/**
 * The file opened and its identity, taken from its path as later checks take it (on some union file systems a
 * descriptor's inode number differs from its path's).
 */
function openForAppend(path: string): { fd: number; size: number; id: string | undefined } {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a', 0o640);
  try {
    return { fd, size: fstatSync(fd).size, id: identityAt(path) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Device and inode of the file `path` names, undefined when it names none. */
function identityAt(path: string): string | undefined {
  try {
    const { dev, ino } = statSync(path, { bigint: true });
    return `${dev}:${ino}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

// An append-only file held open for the process lifetime, with its size tracked in memory (no per-write stat).
import {
  close,
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { bytesWrittenBefore, writeFully } from './write-fully.ts';

export interface AppendFile {
  readonly path: string;
  /** Bytes in the file, counted from the size at open plus every successful append. */
  readonly size: number;
  /**
   * When the file was removed (its folder deleted, a cleanup job) since it was opened, opens the path again, as a
   * new file: appends to the removed one would succeed and be lost with it. Throws when the path cannot be opened.
   */
  reopenIfRemoved(): void;
  append(data: Buffer): void;
  close(): void;
  /** Stops appends now; syncs and closes the file off the event loop (a rotated file: nobody waits for it). */
  closeInBackground(): void;
}

export function openAppendFile(path: string): AppendFile {
  let { fd, size } = openForAppend(path);
  let closed = false;
  return {
    path,
    get size() {
      return size;
    },
    reopenIfRemoved() {
      if (closed || fstatSync(fd).nlink > 0) return;
      const reopened = openForAppend(path);
      closeSync(fd);
      ({ fd, size } = reopened);
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

function openForAppend(path: string): { fd: number; size: number } {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a', 0o640);
  try {
    return { fd, size: fstatSync(fd).size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

// Opens every file of a chain before any is read. A running `file` sink renames them as it rotates; read one after
// another by name, a file shifted meanwhile would be skipped, and the chain would look broken where it is not.
import { closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';

export interface OpenedFile {
  readonly path: string;
  readonly fd: number;
}

const MAX_ATTEMPTS = 5;

/**
 * Descriptors of the files `list()` names, in its order, each a regular file; the last one (the current file) may
 * be missing when others are listed, and is then left out. The files are listed again once all are open: when a
 * rotation came in between (another list, a name missing or naming another file), they are opened anew.
 */
export function openChainFiles(list: () => readonly string[]): OpenedFile[] {
  for (let attempt = 1; ; attempt++) {
    const files = list();
    const opened: OpenedFile[] = [];
    let complete = true;
    try {
      for (const [index, path] of files.entries()) {
        try {
          opened.push({ path, fd: openRegularFile(path) });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          if (files.length > 1 && index === files.length - 1) continue;
          // A rotated file missing is one being renamed, unless it still is after every attempt.
          if (attempt === MAX_ATTEMPTS) throw error;
          complete = false;
          break;
        }
      }
      if (attempt === MAX_ATTEMPTS) return opened;
      if (complete && sameList(files, list()) && opened.every(stillNamed)) return opened;
    } catch (error) {
      closeAll(opened);
      throw error;
    }
    closeAll(opened);
  }
}

export function closeAll(opened: readonly OpenedFile[]): void {
  for (const { fd } of opened) closeSync(fd);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((path, index) => path === b[index]);
}

function stillNamed({ path, fd }: OpenedFile): boolean {
  try {
    const named = statSync(path, { bigint: true });
    const held = fstatSync(fd, { bigint: true });
    return named.dev === held.dev && named.ino === held.ino;
  } catch {
    return false;
  }
}

/**
 * Opens `path` for reading only when it is a regular file: a pipe would block the open and every read until some
 * process wrote to it, and a device such as /dev/zero never ends. Checked again on the descriptor, opened
 * non-blocking, in case the name was swapped in between.
 */
function openRegularFile(path: string): number {
  if (!statSync(path).isFile()) throw new NotRegularFile(path);
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  if (fstatSync(fd).isFile()) return fd;
  closeSync(fd);
  throw new NotRegularFile(path);
}

class NotRegularFile extends Error {
  /** The file refused, which may be a rotated one rather than the file named. */
  readonly path: string;
  constructor(path: string) {
    super('not a regular file (a directory, device, pipe or socket is not read)');
    this.path = path;
  }
}

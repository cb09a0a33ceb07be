// Reads a file Ambit is told to load (config, env file, metadata manifest) only when it is a regular file of bounded
// size: `/dev/zero`, a FIFO or a runaway file would otherwise be read forever or until memory runs out.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';

export const MIB = 1024 * 1024;
/** The largest config file or metadata manifest read. */
export const MAX_CONFIG_FILE_BYTES = 4 * MIB;
/** The largest `--env-file` read. */
export const MAX_ENV_FILE_BYTES = 1 * MIB;

const CHUNK_BYTES = 64 * 1024;

export type BoundedRead =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly reason: string; readonly errno?: string | undefined };

/** The bytes of `path`, or why they were not read (`errno` set when the system refused the file). */
export function readBoundedFile(path: string, maxBytes: number): BoundedRead {
  let fd: number;
  try {
    // Checked before opening: opening a device or a FIFO can block or have effects of its own.
    if (!statSync(path).isFile()) return notRegular();
    // Non-blocking, so a FIFO swapped in after the check cannot hang the open; the descriptor is checked again.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return { ok: false, reason: message, errno: code };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return notRegular();
    if (stat.size > maxBytes) return tooLarge(maxBytes);
    // Read until the end rather than trusting the size: a file may grow meanwhile, and some report size 0.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      total += read;
      if (total > maxBytes) return tooLarge(maxBytes);
      chunks.push(chunk.subarray(0, read));
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return { ok: false, reason: message, errno: code };
  } finally {
    closeSync(fd);
  }
}

function notRegular(): BoundedRead {
  return { ok: false, reason: 'not a regular file (a directory, device, pipe or socket is not read)' };
}

function tooLarge(maxBytes: number): BoundedRead {
  return { ok: false, reason: `larger than ${maxBytes / MIB} MiB, the most read` };
}

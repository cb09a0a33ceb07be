// Offline verification of an audit file and, on request, its rotated predecessors (oldest first).
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { verifyAuditChain } from './audit-envelope.ts';
import { rotatedFiles } from './sinks/file-sink.ts';

export { rotatedFiles };

export type AuditFileVerification =
  | {
      ok: true;
      count: number;
      lastHash: string | null;
      files: string[];
      /** The prev_hash the verified records continue from: null when they start the chain. */
      startsFrom: string | null;
    }
  /** `line` 0: the files hold no record at all. */
  | { ok: false; line: number; reason: string; file: string };

export interface VerifyAuditFileOptions {
  /** Also verify `<path>.N` … `<path>.1` before `<path>`, as one chain. */
  readonly includeRotated?: boolean;
  /** Anchor for the first record (see verifyAuditChain); by default the oldest file's first prev_hash. */
  readonly startPrevHash?: string | null;
}

/** Streams the files line by line, so large audit files are never held in memory at once. */
export function verifyAuditFile(
  path: string,
  secret: Buffer,
  options: VerifyAuditFileOptions = {},
): AuditFileVerification {
  const rotated = options.includeRotated ? rotatedFiles(path) : [];
  const files = [...rotated, path];
  let anchor = options.startPrevHash;
  let count = 0;
  const verified: string[] = [];
  let startsFrom: string | null | undefined;
  for (const file of files) {
    const lines = new LineReader(file);
    // A rotation interrupted before the first new write leaves no current file; the rotated ones still count.
    if (file === path && rotated.length > 0 && !lines.exists()) continue;
    let result: ReturnType<typeof verifyAuditChain>;
    try {
      result = verifyAuditChain(lines, secret, anchor);
    } catch (error) {
      if (!(error instanceof LineTooLong)) throw error;
      return { ok: false, line: error.line, reason: error.message, file };
    }
    if (!result.ok) {
      // A write cut short (a crash, a full disk) leaves half a line at the end: say so rather than "not JSON".
      const cut = lines.unterminated && result.line === lines.count;
      const reason = cut ? `last line is not terminated (truncated write): ${result.reason}` : result.reason;
      return { ok: false, line: result.line, reason, file };
    }
    if (lines.endsWithEmptyLine) {
      return { ok: false, line: lines.count, reason: 'empty line at the end of the file', file };
    }
    if (lines.unterminated) {
      return { ok: false, line: lines.count, reason: 'last line is not terminated (truncated write)', file };
    }
    // The oldest file holding a record says where the verified records start.
    if (startsFrom === undefined) startsFrom = result.firstPrevHash;
    if (result.count > 0) anchor = result.lastHash;
    count += result.count;
    verified.push(file);
  }
  // No record proves nothing: an emptied file reads as a new one, and neither shows where a chain starts.
  if (count === 0) {
    const where = rotated.length > 0 ? ' (nor in its rotated files)' : '';
    return {
      ok: false,
      line: 0,
      reason: `no audit record in the file${where}: nothing verified`,
      file: path,
    };
  }
  return { ok: true, count, lastHash: anchor ?? null, files: verified, startsFrom: startsFrom ?? null };
}

const CHUNK = 64 * 1024;
/** Far above any record the services write (their requests are bounded well below it); a longer line is not an
 * audit record, and reading it whole could exhaust memory (a file of zeros without a newline, say). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

class LineTooLong extends Error {
  readonly line: number;
  constructor(line: number) {
    super(`line is longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB: not an audit record`);
    this.line = line;
  }
}

class LineReader implements Iterable<string> {
  readonly path: string;
  count = 0;
  unterminated = false;
  endsWithEmptyLine = false;

  constructor(path: string) {
    this.path = path;
  }

  exists(): boolean {
    try {
      statSync(this.path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  *[Symbol.iterator](): Iterator<string> {
    const fd = openRegularFile(this.path);
    try {
      const chunk = Buffer.alloc(CHUNK);
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      for (;;) {
        const read = readSync(fd, chunk, 0, CHUNK, null);
        if (read === 0) break;
        let start = 0;
        for (let nl = chunk.indexOf(0x0a, start); nl !== -1 && nl < read; nl = chunk.indexOf(0x0a, start)) {
          pending.push(chunk.subarray(start, nl));
          if (pendingBytes + nl - start > MAX_LINE_BYTES) throw new LineTooLong(this.count + 1);
          yield this.emit(Buffer.concat(pending).toString('utf8'));
          pending = [];
          pendingBytes = 0;
          start = nl + 1;
        }
        // Copy the unfinished line: the chunk buffer is reused by the next read.
        if (start < read) {
          pending.push(Buffer.from(chunk.subarray(start, read)));
          pendingBytes += read - start;
          if (pendingBytes > MAX_LINE_BYTES) throw new LineTooLong(this.count + 1);
        }
      }
      if (pending.length > 0) {
        this.unterminated = true;
        yield this.emit(Buffer.concat(pending).toString('utf8'));
      }
    } finally {
      closeSync(fd);
    }
  }

  private emit(line: string): string {
    this.count++;
    this.endsWithEmptyLine = line === '';
    return line;
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

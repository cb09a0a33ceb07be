// Offline verification of an audit file and, on request, its rotated predecessors (oldest first).
import { readSync } from 'node:fs';
import { verifyAuditChain } from './audit-envelope.ts';
import { closeAll, type OpenedFile, openChainFiles } from './open-chain-files.ts';
import { rotatedFiles } from './sinks/file-sink.ts';
import { decodeUtf8Line } from './utf8-line.ts';

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
  /** `line` 0: a finding about the files as a whole (no record at all, the anchor record missing). */
  | { ok: false; line: number; reason: string; file: string };

export interface VerifyAuditFileOptions {
  /** Also verify `<path>.N` … `<path>.1` before `<path>`, as one chain. */
  readonly includeRotated?: boolean;
  /** Anchor for the first record (see verifyAuditChain); by default the oldest file's first prev_hash. */
  readonly startPrevHash?: string | null;
  /**
   * A record_hash noted from an earlier run: the verified records must hold that record or continue from it. A file
   * keeps growing after its last hash is noted, so the record is usually inside it, not before its first line;
   * records removed from the end (that record among them) leave a chain that verifies, and only this shows them.
   */
  readonly anchor?: string;
  /** Runs once each file is verified, before the next is read: where tests rotate files as a running service may. */
  readonly afterFile?: (file: string) => void;
}

/** Streams the files line by line, so large audit files are never held in memory at once. */
export function verifyAuditFile(
  path: string,
  secret: Buffer,
  options: VerifyAuditFileOptions = {},
): AuditFileVerification {
  let rotated: string[] = [];
  const opened = openChainFiles(() => {
    rotated = options.includeRotated ? rotatedFiles(path) : [];
    return [...rotated, path];
  });
  try {
    return verifyOpened(opened, path, rotated.length > 0, secret, options);
  } finally {
    closeAll(opened);
  }
}

function verifyOpened(
  opened: readonly OpenedFile[],
  path: string,
  withRotated: boolean,
  secret: Buffer,
  options: VerifyAuditFileOptions,
): AuditFileVerification {
  let anchor = options.startPrevHash;
  let count = 0;
  const verified: string[] = [];
  let startsFrom: string | null | undefined;
  let holdsAnchor = false;
  const onRecord = (recordHash: string) => {
    if (recordHash === options.anchor) holdsAnchor = true;
  };
  for (const { path: file, fd } of opened) {
    const lines = new LineReader(fd);
    let result: ReturnType<typeof verifyAuditChain>;
    try {
      result = verifyAuditChain(lines, secret, anchor, options.anchor === undefined ? undefined : onRecord);
    } catch (error) {
      if (!(error instanceof UnreadableLine)) throw error;
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
    options.afterFile?.(file);
  }
  // No record proves nothing: an emptied file reads as a new one, and neither shows where a chain starts.
  if (count === 0) {
    const where = withRotated ? ' (nor in its rotated files)' : '';
    return {
      ok: false,
      line: 0,
      reason: `no audit record in the file${where}: nothing verified`,
      file: path,
    };
  }
  if (options.anchor !== undefined && !holdsAnchor && startsFrom !== options.anchor) {
    const where = withRotated ? 'these files, nor do their' : 'this file, nor do its';
    return {
      ok: false,
      line: 0,
      reason: `the --anchor record ${options.anchor} is not in ${where} records continue from it: records were removed from the end, or it was in a file no longer kept, or it is from another chain`,
      file: path,
    };
  }
  return { ok: true, count, lastHash: anchor ?? null, files: verified, startsFrom: startsFrom ?? null };
}

const CHUNK = 64 * 1024;
/** Far above any record the services write (their requests are bounded well below it); a longer line is not an
 * audit record, and reading it whole could exhaust memory (a file of zeros without a newline, say). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** A line that is not handed to the chain check: too long to read whole, or not UTF-8. */
class UnreadableLine extends Error {
  readonly line: number;
  constructor(line: number, reason: string) {
    super(reason);
    this.line = line;
  }
}

const tooLong = (line: number) =>
  new UnreadableLine(line, `line is longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB: not an audit record`);

/** The lines of an open file, read in chunks from its start (the descriptor is closed by its opener). */
class LineReader implements Iterable<string> {
  readonly fd: number;
  count = 0;
  unterminated = false;
  endsWithEmptyLine = false;

  constructor(fd: number) {
    this.fd = fd;
  }

  *[Symbol.iterator](): Iterator<string> {
    const fd = this.fd;
    const chunk = Buffer.alloc(CHUNK);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for (;;) {
      const read = readSync(fd, chunk, 0, CHUNK, null);
      if (read === 0) break;
      let start = 0;
      for (let nl = chunk.indexOf(0x0a, start); nl !== -1 && nl < read; nl = chunk.indexOf(0x0a, start)) {
        pending.push(chunk.subarray(start, nl));
        if (pendingBytes + nl - start > MAX_LINE_BYTES) throw tooLong(this.count + 1);
        const line = decodeUtf8Line(Buffer.concat(pending));
        if (line === undefined) throw new UnreadableLine(this.count + 1, 'line is not valid UTF-8');
        yield this.emit(line);
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
      }
      // Copy the unfinished line: the chunk buffer is reused by the next read.
      if (start < read) {
        pending.push(Buffer.from(chunk.subarray(start, read)));
        pendingBytes += read - start;
        if (pendingBytes > MAX_LINE_BYTES) throw tooLong(this.count + 1);
      }
    }
    if (pending.length > 0) {
      this.unterminated = true;
      // Decoded leniently: a write cut short may end inside a character, and is reported as cut short.
      yield this.emit(Buffer.concat(pending).toString('utf8'));
    }
  }

  private emit(line: string): string {
    this.count++;
    this.endsWithEmptyLine = line === '';
    return line;
  }
}

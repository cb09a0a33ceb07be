// Opens the configured audit sink and resumes its hash chain from the last record already stored.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Clock } from '../clock.ts';
import type { AuditBlock } from '../config/audit-config-schema.ts';
import { ConfigError } from '../config/config-error.ts';
import type { Logger } from '../log.ts';
import type { Problem } from '../problem/problem.ts';
import type { Random } from '../random.ts';
import { verifyEnvelopeLine } from './audit-envelope.ts';
import { AuditFileInUse, type AuditFileLock, lockAuditFile } from './audit-file-lock.ts';
import type { AuditIssueCode } from './audit-issue-codes.ts';
import { type AuditWritePolicy, type AuditWriter, createChainWriter } from './chain-writer.ts';
import { createDeferredChainWriter } from './deferred-chain-writer.ts';
import { guardByLock } from './lock-guarded-sink.ts';
import { readTailLine } from './read-tail-line.ts';
import {
  type AuditSink,
  type DeferredAuditSink,
  type FileAuditSink,
  isDeferredSink,
} from './sinks/audit-sink.ts';
import { createFileSink, DEFAULT_ROTATE, type RotateOptions, rotatedPath } from './sinks/file-sink.ts';
import { createJsonlSink } from './sinks/jsonl-sink.ts';
import { openStdoutSink } from './sinks/stdout-sink.ts';
import { setTornTailAside } from './torn-tail.ts';

export type { AuditWriter } from './chain-writer.ts';

export interface AuditWriterOptions {
  sink: 'stdout' | 'file' | 'jsonl';
  path?: string;
  rotate?: RotateOptions;
  /** >= 32 bytes, validated by the caller. */
  secret: Buffer;
  writePolicy: AuditWritePolicy;
  clock: Clock;
  random: Random;
  logger: Logger;
  /** The problem a failed write reports under `fail_closed`; by default the platform's (503). */
  writeFailed?: (cause: unknown) => Problem;
}

/** The writer a service's `audit` block describes; a relative `path` is read from the config file's folder. */
export function createConfiguredAuditWriter(
  block: AuditBlock,
  options: Pick<AuditWriterOptions, 'secret' | 'clock' | 'random' | 'logger' | 'writeFailed'> & {
    readonly baseDir: string;
  },
): AuditWriter {
  const { baseDir, ...rest } = options;
  return createAuditWriter({
    sink: block.sink,
    ...(block.path === undefined ? {} : { path: resolve(baseDir, block.path) }),
    ...(block.rotate === undefined ? {} : { rotate: block.rotate }),
    writePolicy: block.write_policy,
    ...rest,
  });
}

/**
 * Throws ConfigError when the sink cannot be opened or when the stored chain's last record does not verify
 * with this secret (tampered or truncated tail, or a changed secret): a silent fresh chain would hide that.
 * Standard output keeps no history, so a stdout chain starts anew with each process.
 */
export function createAuditWriter(options: AuditWriterOptions): AuditWriter {
  if (options.sink === 'stdout') return startWriter(options, openSink(options), null);
  const path = requirePath(options);
  // The lease refresh finding the lock gone or replaced checks it at once, rather than at the next append.
  let refreshFailed = () => {};
  const lock = lockFile(path, () => refreshFailed());
  try {
    repairTail(options);
    const prevHash = resumeChain(options);
    const sink = guardByLock(openSink(options) as FileAuditSink, lock, path, options.logger);
    refreshFailed = () => sink.checkLock();
    return startWriter(options, sink, prevHash);
  } catch (error) {
    lock.release();
    throw error;
  }
}

function startWriter(
  options: AuditWriterOptions,
  sink: AuditSink | DeferredAuditSink,
  prevHash: string | null,
): AuditWriter {
  const chain = {
    secret: options.secret,
    writePolicy: options.writePolicy,
    clock: options.clock,
    random: options.random,
    logger: options.logger,
    prevHash,
    ...(options.writeFailed === undefined ? {} : { writeFailed: options.writeFailed }),
  };
  // A deferred sink: standard output handed to another process (see handStdoutAuditTo).
  return isDeferredSink(sink) ? createDeferredChainWriter(sink, chain) : createChainWriter(sink, chain);
}

/** The file's lock, its folder made first (the sink would make it next anyway). */
function lockFile(path: string, refreshFailed: () => void): AuditFileLock {
  try {
    mkdirSync(dirname(path), { recursive: true });
    return lockAuditFile(path, {}, refreshFailed);
  } catch (error) {
    if (error instanceof AuditFileInUse) {
      throw auditIssue(
        'audit.sink_in_use',
        `${error.message}; give each process its own audit.path (\`--workers\` does)`,
      );
    }
    throw sinkUnavailable(`${path}.lock`, error);
  }
}

/** A record cut short by a killed process is set aside (torn-tail.ts); rotated files were whole when rotated. */
function repairTail(options: AuditWriterOptions): void {
  const path = requirePath(options);
  try {
    setTornTailAside(path, options.clock, options.logger);
  } catch (error) {
    throw sinkUnavailable(path, error);
  }
}

function requirePath(options: AuditWriterOptions): string {
  if (options.path === undefined || options.path === '') {
    throw auditIssue('audit.path_required', `the ${options.sink} audit sink needs a path`);
  }
  return options.path;
}

function openSink(options: AuditWriterOptions): AuditSink | DeferredAuditSink {
  if (options.sink === 'stdout') return openStdoutSink();
  const path = requirePath(options);
  try {
    return options.sink === 'file'
      ? createFileSink(path, options.rotate ?? DEFAULT_ROTATE, options.logger)
      : createJsonlSink(path, options.logger);
  } catch (error) {
    throw sinkUnavailable(path, error);
  }
}

function resumeChain(options: AuditWriterOptions): string | null {
  const path = requirePath(options);
  // After a rotation the current file may still be empty; the chain then ends in the newest rotated file.
  const candidates = options.sink === 'file' ? [path, rotatedPath(path, 1)] : [path];
  for (const file of candidates) {
    let tail: ReturnType<typeof readTailLine>;
    try {
      tail = readTailLine(file);
    } catch (error) {
      throw sinkUnavailable(file, error);
    }
    if (tail.kind === 'empty') continue;
    if (tail.kind === 'unterminated') throw chainInvalid(file, 'the file does not end with a complete line');
    if (tail.kind === 'not_utf8') throw chainInvalid(file, 'the last line is not valid UTF-8');
    const checked = verifyEnvelopeLine(tail.line, options.secret);
    if (!checked.ok) throw chainInvalid(file, checked.reason);
    return checked.envelope.record_hash;
  }
  return null;
}

function chainInvalid(file: string, reason: string): ConfigError {
  return auditIssue(
    'audit.chain_invalid',
    `the last audit record in ${file} does not verify (${reason}); ` +
      'check the file and the audit secret, or move the file aside to start a new chain',
  );
}

function sinkUnavailable(file: string, error: unknown): ConfigError {
  const detail = error instanceof Error ? error.message : String(error);
  return auditIssue('audit.sink_unavailable', `cannot open ${file}: ${detail}`);
}

/** Every audit startup problem is about `audit.path`; its code is one of AUDIT_ISSUE_CODES, which documents it. */
function auditIssue(code: AuditIssueCode, message: string): ConfigError {
  return new ConfigError([{ path: 'audit.path', code, message }]);
}

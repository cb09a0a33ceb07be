import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  constants,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { fixedClock } from '../clock.ts';
import { isProblem } from '../problem/problem.ts';
import { verifyAuditFile } from './audit-cli.ts';
import { type AuditEnvelope, verifyAuditChain } from './audit-envelope.ts';
import {
  isConfigError,
  makeTempDir,
  OTHER_SECRET,
  readEnvelopes,
  recordingLogger,
  sampleRecord,
  sequenceRandom,
  TEST_SECRET,
  writerOptions,
} from './audit-test-support.ts';
import { createChainWriter } from './chain-writer.ts';
import { createAuditWriter } from './create-audit-writer.ts';
import type { AuditSink } from './sinks/audit-sink.ts';
import { createStdoutSink } from './sinks/stdout-sink.ts';

const options = writerOptions;

function isWriteFailed(error: unknown): boolean {
  return isProblem(error) && error.code === 'audit.write_failed' && error.status === 503;
}

/** A sink that fails while `failing` is set and keeps what it accepted. */
function flakySink(): AuditSink & { failing: boolean; lines: string[] } {
  const sink = {
    failing: false,
    lines: [] as string[],
    append(text: string) {
      if (sink.failing) throw Object.assign(new Error('disk on fire'), { code: 'EIO' });
      // The sink contract: whole lines, each with its newline.
      assert.ok(text.endsWith('\n'), 'appended text ends with a newline');
      sink.lines.push(text);
    },
    close: async () => {},
  };
  return sink;
}

describe('createAuditWriter (jsonl)', () => {
  it('writes one chained envelope line per record', async (t) => {
    const path = join(makeTempDir(t), 'nested', 'audit.jsonl');
    const writer = createAuditWriter(options({ path }));
    assert.equal(writer.lastHash, null);
    for (let n = 1; n <= 3; n++) writer.write(sampleRecord(n));
    await writer.close();
    const envelopes = readEnvelopes(path);
    assert.equal(envelopes.length, 3);
    assert.equal(envelopes[0]?.prev_hash, null);
    assert.equal(envelopes[1]?.prev_hash, envelopes[0]?.record_hash);
    assert.deepEqual(envelopes[2]?.record, sampleRecord(3));
    assert.equal(writer.lastHash, envelopes[2]?.record_hash);
    assert.deepEqual(verifyAuditFile(path, TEST_SECRET, { startPrevHash: null }), {
      ok: true,
      count: 3,
      lastHash: writer.lastHash,
      files: [path],
      startsFrom: null,
    });
  });

  it('resumes the chain from the last record after a restart', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const first = createAuditWriter(options({ path }));
    first.write(sampleRecord(1));
    first.write(sampleRecord(2));
    await first.close();
    const lastOld = first.lastHash;

    const second = createAuditWriter(options({ path, random: sequenceRandom() }));
    assert.equal(second.lastHash, lastOld);
    second.write(sampleRecord(3));
    await second.close();
    const envelopes = readEnvelopes(path);
    assert.equal(envelopes[2]?.prev_hash, lastOld);
    assert.equal(verifyAuditFile(path, TEST_SECRET, { startPrevHash: null }).ok, true);
  });

  it('resumes from a last line longer than the tail window', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const first = createAuditWriter(options({ path }));
    first.write(sampleRecord(1));
    first.write({ ...sampleRecord(2), purpose: 'p'.repeat(50_000) });
    await first.close();
    const second = createAuditWriter(options({ path }));
    assert.equal(second.lastHash, first.lastHash);
    await second.close();
  });

  it('refuses to start on a tampered, truncated or foreign tail instead of starting a new chain', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    const writer = createAuditWriter(options({ path }));
    writer.write(sampleRecord(1));
    writer.write(sampleRecord(2));
    await writer.close();
    const original = readFileSync(path, 'utf8');

    writeFileSync(path, original.replace('"req-2"', '"req-9"'));
    assert.throws(() => createAuditWriter(options({ path })), isConfigError('audit.chain_invalid'));

    // A record cut short and then ended with a newline is no partial write: it is refused.
    writeFileSync(path, `${original.slice(0, original.length - 10)}\n`);
    assert.throws(() => createAuditWriter(options({ path })), isConfigError('audit.chain_invalid'));

    writeFileSync(path, original);
    appendFileSync(path, 'garbage\n');
    assert.throws(() => createAuditWriter(options({ path })), isConfigError('audit.chain_invalid'));

    writeFileSync(path, original);
    assert.throws(
      () => createAuditWriter(options({ path, secret: OTHER_SECRET })),
      isConfigError('audit.chain_invalid'),
    );
    // Nothing was appended by the refused starts.
    assert.equal(readFileSync(path, 'utf8'), original);
  });

  it('needs a path for the file and jsonl sinks', () => {
    assert.throws(() => createAuditWriter(options({ sink: 'jsonl' })), isConfigError('audit.path_required'));
    assert.throws(
      () => createAuditWriter(options({ sink: 'file', path: '' })),
      isConfigError('audit.path_required'),
    );
  });

  it('reports a path that cannot be opened as a config error', (t) => {
    const dir = makeTempDir(t);
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    assert.throws(
      () => createAuditWriter(options({ path: join(blocker, 'audit.jsonl') })),
      isConfigError('audit.sink_unavailable'),
    );
  });
});

describe('write policy', () => {
  it('fail_closed: a failed append throws audit.write_failed and the chain does not advance', () => {
    const sink = flakySink();
    const { logger, calls } = recordingLogger();
    const clock = fixedClock('2025-01-01T00:00:00.000Z');
    const writer = createChainWriter(sink, {
      secret: TEST_SECRET,
      writePolicy: 'fail_closed',
      clock,
      random: sequenceRandom(),
      logger,
      prevHash: null,
    });
    writer.write(sampleRecord(1));
    const before = writer.lastHash;
    sink.failing = true;
    assert.throws(() => writer.write(sampleRecord(2)), isWriteFailed);
    assert.throws(() => writer.write(sampleRecord(3)), isWriteFailed);
    assert.equal(writer.lastHash, before);
    assert.equal(calls.filter((c) => c.level === 'error').length, 1);
    assert.ok(!JSON.stringify(calls).includes('req-2'), 'the record must not be logged');

    sink.failing = false;
    writer.write(sampleRecord(4));
    const resumed = JSON.parse(sink.lines[1] as string) as AuditEnvelope;
    assert.equal(resumed.prev_hash, before);
    assert.equal(calls.at(-1)?.level, 'warn');
    assert.equal(calls.at(-1)?.fields.failed_writes, 2);
  });

  it('availability_first: failures do not throw, are logged once per burst and leave the chain intact', () => {
    const sink = flakySink();
    const { logger, calls } = recordingLogger();
    const writer = createChainWriter(sink, {
      secret: TEST_SECRET,
      writePolicy: 'availability_first',
      clock: fixedClock('2025-01-01T00:00:00.000Z'),
      random: sequenceRandom(),
      logger,
      prevHash: null,
    });
    writer.write(sampleRecord(1));
    sink.failing = true;
    for (let n = 2; n <= 5; n++) writer.write(sampleRecord(n));
    sink.failing = false;
    writer.write(sampleRecord(6));
    sink.failing = true;
    writer.write(sampleRecord(7));
    const errors = calls.filter((c) => c.level === 'error');
    assert.equal(errors.length, 2, 'one error per burst');
    assert.equal(errors[0]?.fields.err_code, 'EIO');
    assert.ok(!JSON.stringify(calls).includes('req-'), 'the record must not be logged');
    // Lost records leave no gap in the links: record 6 follows record 1 directly.
    const [one, six] = sink.lines.map((line) => JSON.parse(line) as AuditEnvelope);
    assert.equal(sink.lines.length, 2);
    assert.equal(six?.prev_hash, one?.record_hash);
    assert.equal(writer.lastHash, six?.record_hash);
  });

  it('fail_closed with a real file on a full disk (/dev/full)', async () => {
    const writer = createAuditWriter(options({ path: '/dev/full' }));
    assert.throws(
      () => writer.write(sampleRecord(1)),
      (error: unknown) => {
        return (
          isWriteFailed(error) && (error as Error & { cause?: { code?: string } }).cause?.code === 'ENOSPC'
        );
      },
    );
    assert.equal(writer.lastHash, null);
    await writer.close();
  });

  it('fail_closed after the writer was closed', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const writer = createAuditWriter(options({ path }));
    writer.write(sampleRecord(1));
    const before = writer.lastHash;
    await writer.close();
    assert.throws(() => writer.write(sampleRecord(2)), isWriteFailed);
    assert.equal(writer.lastHash, before);
    assert.equal(readEnvelopes(path).length, 1);
  });

  it('fail_closed when the audit folder cannot be made again, and availability_first carries on', async (t) => {
    for (const writePolicy of ['fail_closed', 'availability_first'] as const) {
      const dir = join(makeTempDir(t), 'gone');
      const path = join(dir, 'audit.jsonl');
      const writer = createAuditWriter(
        options({ sink: 'file', path, rotate: { max_size_mb: 0.0001, max_files: 2 }, writePolicy }),
      );
      writer.write(sampleRecord(1));
      const before = writer.lastHash;
      // The folder removed and a plain file in its place: the audit file can be neither written nor opened again.
      rmSync(dir, { recursive: true, force: true });
      writeFileSync(dir, 'not a folder');
      if (writePolicy === 'fail_closed') assert.throws(() => writer.write(sampleRecord(2)), isWriteFailed);
      else writer.write(sampleRecord(2));
      assert.equal(writer.lastHash, before);
      await writer.close();
    }
  });

  it('opens the audit file again in a folder made again when the folder was removed', async (t) => {
    const dir = join(makeTempDir(t), 'gone');
    const path = join(dir, 'audit.jsonl');
    const writer = createAuditWriter(options({ sink: 'file', path, writePolicy: 'fail_closed' }));
    writer.write(sampleRecord(1));
    rmSync(dir, { recursive: true, force: true });
    writer.write(sampleRecord(2));
    await writer.close();
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as AuditEnvelope).record.request_id),
      ['req-2'],
    );
  });
});

describe('group commit (enqueue)', () => {
  const writerOn = (sink: AuditSink, writePolicy: 'fail_closed' | 'availability_first' = 'fail_closed') => {
    const { logger, calls } = recordingLogger();
    const writer = createChainWriter(sink, {
      secret: TEST_SECRET,
      writePolicy,
      clock: fixedClock('2025-01-01T00:00:00.000Z'),
      random: sequenceRandom(),
      logger,
      prevHash: null,
    });
    return { writer, calls };
  };
  const enqueueAll = (writer: ReturnType<typeof writerOn>['writer'], from: number, to: number) =>
    Promise.all(
      Array.from(
        { length: to - from + 1 },
        (_, i) => new Promise<unknown>((resolve) => writer.enqueue(sampleRecord(from + i), resolve)),
      ),
    );
  const chainOf = (sink: { lines: string[] }) => sink.lines.flatMap((text) => text.split('\n').slice(0, -1));

  it('writes the records queued in one event-loop turn with one append, in order, as one valid chain', async () => {
    const sink = flakySink();
    const { writer } = writerOn(sink);
    const outcomes = await enqueueAll(writer, 1, 5);
    assert.deepEqual(outcomes, [undefined, undefined, undefined, undefined, undefined]);
    assert.equal(sink.lines.length, 1, 'one append for the whole turn');
    const lines = chainOf(sink);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as AuditEnvelope).record.request_id),
      ['req-1', 'req-2', 'req-3', 'req-4', 'req-5'],
    );
    const checked = verifyAuditChain(lines, TEST_SECRET, null);
    assert.deepEqual(checked, { ok: true, count: 5, lastHash: writer.lastHash, firstPrevHash: null });
  });

  it('fail_closed: every record of a failed batch reports audit.write_failed, and the chain resumes from the last written record', async () => {
    const sink = flakySink();
    const { writer, calls } = writerOn(sink);
    await enqueueAll(writer, 1, 2);
    const durable = writer.lastHash;
    sink.failing = true;
    const failed = await enqueueAll(writer, 3, 5);
    assert.equal(failed.length, 3);
    for (const outcome of failed) assert.ok(isWriteFailed(outcome));
    assert.equal(writer.lastHash, durable);
    assert.ok(!JSON.stringify(calls).includes('req-4'), 'no record is logged');
    sink.failing = false;
    await enqueueAll(writer, 6, 7);
    const lines = chainOf(sink);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as AuditEnvelope).record.request_id),
      ['req-1', 'req-2', 'req-6', 'req-7'],
    );
    assert.equal(verifyAuditChain(lines, TEST_SECRET, null).ok, true);
  });

  it('logs an outage once, across batches, and its recovery once, with every record that failed', async () => {
    const sink = flakySink();
    const { writer, calls } = writerOn(sink);
    sink.failing = true;
    // Three turns of failing appends: building each line succeeds, which is no recovery.
    await enqueueAll(writer, 1, 2);
    await enqueueAll(writer, 3, 3);
    await enqueueAll(writer, 4, 5);
    sink.failing = false;
    await enqueueAll(writer, 6, 6);
    assert.deepEqual(
      calls.map((call) => call.message),
      ['audit write failed', 'audit writes recovered'],
    );
    assert.equal(calls.at(-1)?.fields.failed_writes, 5);
  });

  it('availability_first: a failed batch lets its responses go and keeps the chain intact', async () => {
    const sink = flakySink();
    const { writer } = writerOn(sink, 'availability_first');
    sink.failing = true;
    assert.deepEqual(await enqueueAll(writer, 1, 2), [undefined, undefined]);
    sink.failing = false;
    await enqueueAll(writer, 3, 3);
    assert.equal(verifyAuditChain(chainOf(sink), TEST_SECRET, null).ok, true);
    assert.equal(chainOf(sink).length, 1);
  });

  it('a direct write and close keep chain order with records still queued', async () => {
    const sink = flakySink();
    const { writer } = writerOn(sink);
    const queued = new Promise<unknown>((resolve) => writer.enqueue(sampleRecord(1), resolve));
    writer.write(sampleRecord(2));
    const closedWhileQueued = new Promise<unknown>((resolve) => writer.enqueue(sampleRecord(3), resolve));
    await writer.close();
    assert.equal(await queued, undefined);
    assert.equal(await closedWhileQueued, undefined);
    const lines = chainOf(sink);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as AuditEnvelope).record.request_id),
      ['req-1', 'req-2', 'req-3'],
    );
    assert.equal(verifyAuditChain(lines, TEST_SECRET, null).ok, true);
  });
});

describe('stdout sink on a pipe whose reader stalls', () => {
  it('finishes a batch cut short ahead of the next one, so the chain stays whole and verifiable', async (t) => {
    // A FIFO opened read-write and non-blocking: a pipe with nobody reading, as standard output with a stalled reader.
    const fifo = join(makeTempDir(t), 'out');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    t.after(() => {
      closeSync(fd);
      closeSync(reader);
    });
    const drain = (): string => {
      const chunks: Buffer[] = [];
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        let read = 0;
        try {
          read = readSync(reader, buffer);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        }
        if (read === 0) return Buffer.concat(chunks).toString('utf8');
        chunks.push(Buffer.from(buffer.subarray(0, read)));
      }
    };
    const writer = createChainWriter(createStdoutSink(fd), {
      secret: TEST_SECRET,
      writePolicy: 'fail_closed',
      clock: fixedClock('2025-01-01T00:00:00.000Z'),
      random: sequenceRandom(),
      logger: recordingLogger().logger,
      prevHash: null,
    });
    const enqueue = (n: number) =>
      new Promise<unknown>((resolve) =>
        writer.enqueue({ ...sampleRecord(n), pad: 'x'.repeat(10_000) }, resolve),
      );
    // More than a pipe holds, in one batch: part of it goes in, then the reader takes nothing for the stall budget.
    const cut = await Promise.all(Array.from({ length: 7 }, (_, i) => enqueue(i + 1)));
    for (const outcome of cut) assert.ok(isWriteFailed(outcome), 'its records are not all written yet');
    let text = drain();
    assert.equal(await enqueue(8), undefined);
    text += drain();
    await writer.close();
    const lines = text.split('\n');
    assert.equal(lines.pop(), '');
    assert.deepEqual(verifyAuditChain(lines, TEST_SECRET, null), {
      ok: true,
      count: 8,
      lastHash: writer.lastHash,
      firstPrevHash: null,
    });
  });
});

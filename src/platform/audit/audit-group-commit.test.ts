// Group commit: a turn's records in one append, failed batches, a batch cut short by a stalled stdout pipe.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { type AuditEnvelope, verifyAuditChain } from './audit-envelope.ts';
import { makeTempDir, sampleRecord, TEST_SECRET } from './audit-test-support.ts';
import { flakySink, isWriteFailed, writerOn } from './chain-writer-test-support.ts';
import { createStdoutSink } from './sinks/stdout-sink.ts';

describe('group commit (enqueue)', () => {
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
    const { writer } = writerOn(createStdoutSink(fd));
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

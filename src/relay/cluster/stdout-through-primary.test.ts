import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AuditEnvelope, verifyAuditChain } from '../../platform/audit/audit-envelope.ts';
import {
  recordingLogger,
  sampleRecord,
  sequenceRandom,
  TEST_SECRET,
} from '../../platform/audit/audit-test-support.ts';
import { createAuditWriter } from '../../platform/audit/create-audit-writer.ts';
import { handStdoutAuditTo } from '../../platform/audit/sinks/stdout-sink.ts';
import { CommittedWriteError } from '../../platform/audit/sinks/write-fully.ts';
import { systemClock } from '../../platform/clock.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import type { AuditBatchMessage, WorkerMessage } from './cluster-messages.ts';
import { type PrimaryChannel, stdoutThroughPrimary, writeWorkerBatch } from './stdout-through-primary.ts';

/** The worker's end of a channel whose primary side the test plays (or wires to writeWorkerBatch). */
function fakeChannel() {
  const sent: WorkerMessage[] = [];
  const messageListeners = new Set<(value: unknown) => void>();
  const disconnectListeners = new Set<() => void>();
  const channel: PrimaryChannel & {
    connected: boolean;
    sendError: Error | null;
    onSend?: (message: WorkerMessage) => void;
  } = {
    connected: true,
    sendError: null,
    isConnected: () => channel.connected,
    send(message, callback) {
      sent.push(message);
      const error = channel.sendError;
      setImmediate(() => callback(error));
      if (error === null) channel.onSend?.(message);
    },
    onMessage(listener) {
      messageListeners.add(listener);
      return () => messageListeners.delete(listener);
    },
    onDisconnect(listener) {
      disconnectListeners.add(listener);
      return () => disconnectListeners.delete(listener);
    },
  };
  return {
    channel,
    sent,
    fromPrimary: (value: unknown) => {
      for (const listener of [...messageListeners]) listener(value);
    },
    disconnect: () => {
      channel.connected = false;
      for (const listener of [...disconnectListeners]) listener();
    },
    listeners: () => messageListeners.size + disconnectListeners.size,
  };
}

/** A worker as the primary sees it. */
function fakeWorker(connected = true) {
  const answers: unknown[] = [];
  return {
    answers,
    isConnected: () => connected,
    send(message: unknown, callback: (error: Error | null) => void) {
      answers.push(message);
      callback(null);
      return true;
    },
  };
}

/** A worker as the primary sees it, whose answers reach the fake channel's worker end. */
function primarySide(fromPrimary: (value: unknown) => void) {
  return {
    isConnected: () => true,
    send(answer: unknown) {
      fromPrimary(answer);
      return true;
    },
  };
}

const outcome = () => {
  const result: { settled: boolean; error?: unknown } = { settled: false };
  return {
    result,
    done: (error?: unknown) => {
      result.settled = true;
      result.error = error;
    },
  };
};

/** A worker's audit writer on the stdout sink, as a relay worker creates it (fail_closed). */
function failClosedStdoutWriter() {
  return createAuditWriter({
    sink: 'stdout',
    secret: TEST_SECRET,
    writePolicy: 'fail_closed',
    clock: systemClock,
    random: sequenceRandom(),
    logger: recordingLogger().logger,
  });
}

describe('stdoutThroughPrimary (the worker side)', () => {
  it('hands each batch to the primary and is done when the primary says it was written', () => {
    const { channel, sent, fromPrimary } = fakeChannel();
    const sink = stdoutThroughPrimary(channel, { answerTimeoutMs: 5000, now: () => 1000 });
    const first = outcome();
    const second = outcome();
    sink.append('{"a":1}\n', first.done);
    sink.append('{"b":2}\n', second.done);
    const [a, b] = sent as AuditBatchMessage[];
    assert.deepEqual(a && { ...a, id: 0 }, {
      kind: 'ambit:audit',
      id: 0,
      lines: '{"a":1}\n',
      deadline: 6000,
    });
    assert.notEqual(a?.id, b?.id);
    fromPrimary({ kind: 'ambit:audit-written', id: b?.id, ok: false, error: 'EPIPE: broken pipe' });
    fromPrimary({ kind: 'ambit:audit-written', id: a?.id, ok: true });
    assert.deepEqual(first.result, { settled: true, error: undefined });
    assert.match(String(second.result.error), /the primary did not write it: EPIPE: broken pipe/);
    // Other messages on the channel (the primary's requests, cluster's own) are not answers.
    fromPrimary({ kind: 'ambit:request', id: a?.id, op: 'status' });
    fromPrimary({ cmd: 'NODE_CLUSTER' });
  });

  it('fails a batch whose send fails, and every batch waiting when the channel closes', async () => {
    const { channel, disconnect } = fakeChannel();
    const sink = stdoutThroughPrimary(channel);
    channel.sendError = new Error('channel closed');
    const failedSend = outcome();
    sink.append('{}\n', failedSend.done);
    await new Promise((resolve) => setImmediate(resolve));
    assert.match(String(failedSend.result.error), /could not hand the batch to the primary: channel closed/);
    channel.sendError = null;
    const waiting = outcome();
    sink.append('{}\n', waiting.done);
    disconnect();
    assert.match(String(waiting.result.error), /closed before it answered/);
    assert.throws(() => sink.append('{}\n', () => assert.fail('not called')), /no channel to the primary/);
  });

  it('refuses appends once closed, fails what is still waiting, and stops listening', async () => {
    const { channel, listeners } = fakeChannel();
    const sink = stdoutThroughPrimary(channel);
    assert.equal(listeners(), 2);
    const waiting = outcome();
    sink.append('{}\n', waiting.done);
    await sink.close();
    assert.match(String(waiting.result.error), /closed before the primary answered/);
    assert.equal(listeners(), 0);
    assert.throws(() => sink.append('{}\n', () => {}), /closed/);
  });
});

describe('writeWorkerBatch (the primary side)', () => {
  const batch = (lines: string, deadline = 2000): AuditBatchMessage => ({
    kind: 'ambit:audit',
    id: 7,
    lines,
    deadline,
  });

  it('writes the batch with one write and answers that it was written', () => {
    const worker = fakeWorker();
    const writes: string[] = [];
    writeWorkerBatch(
      worker,
      batch('{"a":1}\n{"b":2}\n'),
      (data) => writes.push(data.toString()),
      () => 1000,
    );
    assert.deepEqual(writes, ['{"a":1}\n{"b":2}\n']);
    assert.deepEqual(worker.answers, [{ kind: 'ambit:audit-written', id: 7, ok: true }]);
  });

  it('says so when a failed write was cut short and its rest goes out ahead of the next write', () => {
    const worker = fakeWorker();
    writeWorkerBatch(
      worker,
      batch('{}\n'),
      () => {
        throw new CommittedWriteError('audit sink stalled: 2 bytes not written; the rest is written later');
      },
      () => 1000,
    );
    assert.deepEqual(worker.answers, [
      {
        kind: 'ambit:audit-written',
        id: 7,
        ok: false,
        error: 'audit sink stalled: 2 bytes not written; the rest is written later',
        committed: true,
      },
    ]);
  });

  it('answers a failed write with its reason', () => {
    const worker = fakeWorker();
    writeWorkerBatch(
      worker,
      batch('{}\n'),
      () => {
        throw new Error('audit sink stalled: 3 bytes not written');
      },
      () => 1000,
    );
    assert.deepEqual(worker.answers, [
      { kind: 'ambit:audit-written', id: 7, ok: false, error: 'audit sink stalled: 3 bytes not written' },
    ]);
  });

  it('refuses, unwritten, a batch past its deadline or not made of whole lines', () => {
    const worker = fakeWorker();
    const write = () => assert.fail('nothing is written');
    writeWorkerBatch(worker, batch('{}\n', 999), write, () => 1000);
    writeWorkerBatch(worker, batch('{"cut":'), write, () => 1000);
    assert.deepEqual(
      worker.answers.map((answer) => (answer as { error: string }).error),
      ['the batch reached the primary after its deadline', 'the batch is not whole lines'],
    );
  });

  it('sends nothing to a worker whose channel is closing', () => {
    const worker = fakeWorker(false);
    let written = 0;
    writeWorkerBatch(
      worker,
      batch('{}\n'),
      () => written++,
      () => 1000,
    );
    assert.equal(written, 1);
    assert.deepEqual(worker.answers, []);
  });
});

describe('a worker audit writer with stdout handed to the primary', () => {
  it('group-commits through the primary: one write per batch, one verifiable chain', async (t) => {
    const { channel, fromPrimary } = fakeChannel();
    const output: string[] = [];
    // The primary answers asynchronously, as over a real channel.
    channel.onSend = (message) =>
      setImmediate(() =>
        writeWorkerBatch(primarySide(fromPrimary), message as AuditBatchMessage, (data) =>
          output.push(data.toString('utf8')),
        ),
      );
    t.after(handStdoutAuditTo(() => stdoutThroughPrimary(channel)));
    const writer = failClosedStdoutWriter();
    const done: Promise<unknown>[] = [];
    const queue = (from: number, count: number) => {
      for (let n = from; n < from + count; n++)
        done.push(new Promise((resolve) => writer.enqueue(sampleRecord(n), resolve)));
    };
    queue(1, 3);
    await new Promise((resolve) => setImmediate(resolve));
    queue(4, 3);
    assert.deepEqual(await Promise.all(done), Array(6).fill(undefined));
    await writer.close();
    assert.ok(output.length >= 2, 'more than one batch');
    const lines = output.join('').split('\n');
    assert.equal(lines.pop(), '');
    const chain = verifyAuditChain(lines, TEST_SECRET, null);
    assert.deepEqual(chain.ok && chain.count, 6);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as AuditEnvelope).record.request_id),
      ['req-1', 'req-2', 'req-3', 'req-4', 'req-5', 'req-6'],
    );
  });

  it('fails the records of a batch the primary could not write (fail_closed)', async (t) => {
    const { channel, fromPrimary } = fakeChannel();
    channel.onSend = (message) =>
      setImmediate(() =>
        writeWorkerBatch(primarySide(fromPrimary), message as AuditBatchMessage, () => {
          throw Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE' });
        }),
      );
    t.after(handStdoutAuditTo(() => stdoutThroughPrimary(channel)));
    const writer = failClosedStdoutWriter();
    const error = await new Promise((resolve) => writer.enqueue(sampleRecord(1), resolve));
    assert.ok(isProblem(error) && error.code === 'audit.write_failed', String(error));
    assert.equal(writer.lastHash, null);
    await writer.close();
  });
  it('chains on from a batch the primary cut short and finishes later, though its records failed', async (t) => {
    const { channel, fromPrimary } = fakeChannel();
    const output: string[] = [];
    let cutNext = true;
    channel.onSend = (message) =>
      setImmediate(() =>
        writeWorkerBatch(primarySide(fromPrimary), message as AuditBatchMessage, (data) => {
          // The first batch goes out in two parts, the second ahead of the next write (as writeFully does).
          if (cutNext) {
            cutNext = false;
            output.push(data.subarray(0, 10).toString('utf8'), data.subarray(10).toString('utf8'));
            throw new CommittedWriteError('audit sink stalled: the rest is written later');
          }
          output.push(data.toString('utf8'));
        }),
      );
    t.after(handStdoutAuditTo(() => stdoutThroughPrimary(channel)));
    const writer = failClosedStdoutWriter();
    const cut = await new Promise((resolve) => writer.enqueue(sampleRecord(1), resolve));
    assert.ok(isProblem(cut) && cut.code === 'audit.write_failed', String(cut));
    assert.notEqual(writer.lastHash, null, 'the chain goes on from the cut batch');
    assert.equal(await new Promise((resolve) => writer.enqueue(sampleRecord(2), resolve)), undefined);
    await writer.close();
    const lines = output.join('').split('\n');
    assert.equal(lines.pop(), '');
    const chain = verifyAuditChain(lines, TEST_SECRET, null);
    assert.deepEqual(chain.ok && chain.count, 2);
  });
});

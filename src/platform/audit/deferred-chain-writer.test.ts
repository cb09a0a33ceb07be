import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../clock.ts';
import { isProblem } from '../problem/problem.ts';
import { type AuditEnvelope, verifyAuditChain } from './audit-envelope.ts';
import { recordingLogger, sampleRecord, sequenceRandom, TEST_SECRET } from './audit-test-support.ts';
import type { AuditWritePolicy } from './chain-writer.ts';
import { createDeferredChainWriter } from './deferred-chain-writer.ts';
import type { DeferredAuditSink } from './sinks/audit-sink.ts';

interface Batch {
  readonly lines: string[];
  answer(error?: unknown): void;
}

/** A deferred sink the test answers by hand; `written` holds the batches answered as written, in order. */
function manualSink(answerTimeoutMs = 1000) {
  const batches: Batch[] = [];
  const written: string[] = [];
  const sink: DeferredAuditSink & { refusing: boolean; closed: boolean } = {
    deferred: true,
    answerTimeoutMs,
    refusing: false,
    closed: false,
    append(text, done) {
      if (sink.refusing) throw new Error('no channel');
      assert.ok(text.endsWith('\n'), 'handed text ends with a newline');
      const lines = text.split('\n').slice(0, -1);
      batches.push({
        lines,
        answer(error) {
          if (error === undefined) written.push(...lines);
          done(error);
        },
      });
    },
    async close() {
      sink.closed = true;
    },
  };
  return { sink, batches, written };
}

function writerOn(sink: DeferredAuditSink, writePolicy: AuditWritePolicy = 'fail_closed') {
  const log = recordingLogger();
  const writer = createDeferredChainWriter(sink, {
    secret: TEST_SECRET,
    writePolicy,
    clock: fixedClock('2025-01-01T00:00:00.000Z'),
    random: sequenceRandom(),
    logger: log.logger,
    prevHash: null,
  });
  return { writer, calls: log.calls };
}

/** Queues `count` records numbered from `from`; each outcome lands in `outcomes` under its number. */
function enqueue(
  writer: ReturnType<typeof writerOn>['writer'],
  from: number,
  count: number,
  outcomes: Map<number, unknown>,
) {
  for (let n = from; n < from + count; n++)
    writer.enqueue(sampleRecord(n), (error) => outcomes.set(n, error));
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const isWriteFailed = (error: unknown) => isProblem(error) && error.code === 'audit.write_failed';
const seqOf = (line: string) => (JSON.parse(line) as AuditEnvelope).record.request_id;

describe('deferred chain writer', () => {
  it('hands over one batch at a time and completes its records only on the answer', async () => {
    const { sink, batches, written } = manualSink();
    const { writer } = writerOn(sink);
    const outcomes = new Map<number, unknown>();
    enqueue(writer, 1, 3, outcomes);
    await turn();
    assert.equal(batches.length, 1);
    assert.equal(batches[0]?.lines.length, 3, 'one group commit');
    assert.equal(outcomes.size, 0, 'nothing completes before the answer');
    // Records queued while the batch is out wait for it, and then go together as the next batch.
    enqueue(writer, 4, 2, outcomes);
    await turn();
    enqueue(writer, 6, 1, outcomes);
    await turn();
    assert.equal(batches.length, 1, 'a second batch waits for the first answer');
    batches[0]?.answer();
    assert.deepEqual([...outcomes.keys()], [1, 2, 3]);
    assert.equal(batches.length, 2);
    assert.deepEqual(batches[1]?.lines.map(seqOf), ['req-4', 'req-5', 'req-6']);
    batches[1]?.answer();
    assert.deepEqual([...outcomes.values()], Array(6).fill(undefined));
    const chain = verifyAuditChain(written, TEST_SECRET, null);
    assert.deepEqual(chain.ok && chain.count, 6);
    assert.equal(writer.lastHash, chain.ok ? chain.lastHash : 'x');
  });

  it('fail_closed: a failed batch fails its records, and the next batch chains onto the last written one', async () => {
    const { sink, batches, written } = manualSink();
    const { writer, calls } = writerOn(sink);
    const outcomes = new Map<number, unknown>();
    enqueue(writer, 1, 2, outcomes);
    await turn();
    batches[0]?.answer();
    const afterFirst = writer.lastHash;
    enqueue(writer, 3, 2, outcomes);
    await turn();
    enqueue(writer, 5, 1, outcomes);
    await turn();
    batches[1]?.answer(Object.assign(new Error('pipe closed'), { code: 'EPIPE' }));
    assert.ok(isWriteFailed(outcomes.get(3)) && isWriteFailed(outcomes.get(4)));
    assert.equal(writer.lastHash, afterFirst, 'the chain did not advance');
    // Record 5 was queued behind the failed batch: it is built now, on the last written record.
    assert.equal(JSON.parse(batches[2]?.lines[0] ?? '').prev_hash, afterFirst);
    batches[2]?.answer();
    assert.equal(outcomes.get(5), undefined);
    assert.ok(outcomes.has(5));
    assert.deepEqual(written.map(seqOf), ['req-1', 'req-2', 'req-5']);
    assert.deepEqual(verifyAuditChain(written, TEST_SECRET, null).ok, true);
    assert.deepEqual(
      calls.map((call) => [call.level, call.message, call.fields.err_code ?? call.fields.failed_writes]),
      [
        ['error', 'audit write failed', 'EPIPE'],
        ['warn', 'audit writes recovered', 2],
      ],
    );
  });

  it('availability_first: a failed batch lets its records go and keeps the chain intact', async () => {
    const { sink, batches, written } = manualSink();
    const { writer } = writerOn(sink, 'availability_first');
    const outcomes = new Map<number, unknown>();
    enqueue(writer, 1, 2, outcomes);
    await turn();
    batches[0]?.answer(new Error('nope'));
    assert.deepEqual(
      [...outcomes.entries()],
      [
        [1, undefined],
        [2, undefined],
      ],
    );
    enqueue(writer, 3, 1, outcomes);
    await turn();
    batches[1]?.answer();
    assert.equal(JSON.parse(written[0] ?? '').prev_hash, null);
  });

  it('fails a batch that is not answered in time, and new records at once until it is', async () => {
    const { sink, batches, written } = manualSink(30);
    const { writer, calls } = writerOn(sink);
    const outcomes = new Map<number, unknown>();
    enqueue(writer, 1, 2, outcomes);
    await turn();
    enqueue(writer, 3, 1, outcomes);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.ok(
      [1, 2, 3].every((n) => isWriteFailed(outcomes.get(n))),
      'timed out, and the one behind it',
    );
    assert.match(String(calls[0]?.fields.err_message), /did not answer within 30 ms/);
    enqueue(writer, 4, 1, outcomes);
    await turn();
    assert.ok(isWriteFailed(outcomes.get(4)), 'failed at once while the batch is unanswered');
    assert.equal(batches.length, 1, 'nothing more is handed over meanwhile');
    // Written after all: the chain continues from it (its records said 503, which is safe).
    batches[0]?.answer();
    assert.equal(calls.at(-1)?.message, 'audit batch written after its records failed (too late)');
    enqueue(writer, 5, 1, outcomes);
    await turn();
    batches[1]?.answer();
    assert.equal(outcomes.get(5), undefined);
    assert.deepEqual(written.map(seqOf), ['req-1', 'req-2', 'req-5']);
    assert.equal(verifyAuditChain(written, TEST_SECRET, null).ok, true);
  });

  it('after a late failure the chain resumes from the last written record', async () => {
    const { sink, batches, written } = manualSink(20);
    const { writer } = writerOn(sink);
    const outcomes = new Map<number, unknown>();
    enqueue(writer, 1, 1, outcomes);
    await turn();
    batches[0]?.answer();
    enqueue(writer, 2, 1, outcomes);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.ok(isWriteFailed(outcomes.get(2)));
    batches[1]?.answer(new Error('refused: past its deadline'));
    enqueue(writer, 3, 1, outcomes);
    await turn();
    batches[2]?.answer();
    assert.deepEqual(written.map(seqOf), ['req-1', 'req-3']);
    assert.equal(verifyAuditChain(written, TEST_SECRET, null).ok, true);
  });

  it('fails the records of a batch that cannot be handed over', async () => {
    const { sink, batches } = manualSink();
    const { writer } = writerOn(sink);
    const outcomes = new Map<number, unknown>();
    sink.refusing = true;
    enqueue(writer, 1, 2, outcomes);
    await turn();
    assert.ok(isWriteFailed(outcomes.get(1)) && isWriteFailed(outcomes.get(2)));
    sink.refusing = false;
    enqueue(writer, 3, 1, outcomes);
    await turn();
    assert.equal(JSON.parse(batches[0]?.lines[0] ?? '').prev_hash, null);
  });

  it('close hands over what is queued and waits for the answers, then closes the sink', async () => {
    const { sink, batches } = manualSink();
    const { writer } = writerOn(sink);
    const outcomes = new Map<number, unknown>();
    enqueue(writer, 1, 1, outcomes);
    await turn();
    enqueue(writer, 2, 1, outcomes);
    let closed = false;
    const closing = writer.close().then(() => {
      closed = true;
    });
    await turn();
    assert.equal(closed, false);
    batches[0]?.answer();
    await turn();
    assert.equal(closed, false, 'record 2 is still out');
    batches[1]?.answer();
    await closing;
    assert.equal(sink.closed, true);
    assert.deepEqual([...outcomes.keys()], [1, 2]);
  });

  it('close does not wait for a batch past its timeout', async () => {
    const { sink } = manualSink(20);
    const { writer } = writerOn(sink);
    const outcomes = new Map<number, unknown>();
    enqueue(writer, 1, 1, outcomes);
    await writer.close();
    assert.equal(sink.closed, true);
    assert.ok(isWriteFailed(outcomes.get(1)));
  });

  it('takes no synchronous writes (nothing may wait for another process)', () => {
    const { writer } = writerOn(manualSink().sink);
    assert.throws(() => writer.write(sampleRecord(1)), /enqueue/);
  });
});

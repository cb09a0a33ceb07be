import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { combineOutcomes } from '../admin/admin-backend.ts';
import { asAuditWritten, asPrimaryMessage, asWorkerMessage, workerAuditPath } from './cluster-messages.ts';

describe('workerAuditPath', () => {
  it('puts the worker number before the extension, in the same folder', () => {
    assert.equal(workerAuditPath('audit.jsonl', 2), 'audit.worker-2.jsonl');
    assert.equal(workerAuditPath('/var/log/ambit/audit.jsonl', 1), '/var/log/ambit/audit.worker-1.jsonl');
    assert.equal(workerAuditPath('var/audit', 3), 'var/audit.worker-3');
    assert.equal(workerAuditPath('logs.d/audit', 1), 'logs.d/audit.worker-1');
    assert.equal(workerAuditPath('.audit', 1), '.audit.worker-1');
  });
});

describe('cluster messages', () => {
  it('recognise only our own messages (cluster sends its internal ones on the same channel)', () => {
    assert.equal(asWorkerMessage({ cmd: 'NODE_CLUSTER', act: 'online' }), undefined);
    assert.equal(asWorkerMessage(null), undefined);
    assert.equal(asWorkerMessage('ambit:listening'), undefined);
    assert.deepEqual(asWorkerMessage({ kind: 'ambit:listening', url: 'http://x' }), {
      kind: 'ambit:listening',
      url: 'http://x',
    });
    assert.equal(asPrimaryMessage({ kind: 'ambit:listening', url: 'http://x' }), undefined);
    assert.equal(asPrimaryMessage({ kind: 'ambit:request', id: 1, op: 'status' })?.id, 1);
    // The answers to a worker's audit batches are not requests, and requests are not answers.
    assert.equal(asPrimaryMessage({ kind: 'ambit:audit-written', id: 1, ok: true }), undefined);
    assert.equal(asAuditWritten({ kind: 'ambit:request', id: 1, op: 'status' }), undefined);
    assert.equal(asAuditWritten({ kind: 'ambit:audit-written', id: 3, ok: true })?.id, 3);
  });
});

describe('combineOutcomes', () => {
  const ok = { ok: true, counts: { total: 2, succeeded: 2, failed: 0 }, failures: [], generation: 'g1' };
  const failed = {
    ok: false,
    counts: { total: 2, succeeded: 1, failed: 1 },
    failures: [{ dataset_id: 'd', table_id: 't', code: 'ingest.parse_error' }],
    generation: 'g0',
  };

  it('is ok with one generation when every worker applied the reload', () => {
    assert.deepEqual(combineOutcomes([ok, ok]), ok);
  });

  it('fails when any worker failed, counting each failed table once', () => {
    const combined = combineOutcomes([ok, failed, failed]);
    assert.equal(combined.ok, false);
    assert.deepEqual(combined.counts, { total: 2, succeeded: 1, failed: 1 });
    assert.deepEqual(combined.failures, failed.failures);
    assert.equal(combined.generation, undefined, 'workers now serve different generations');
  });

  it('refuses an empty answer', () => {
    assert.throws(() => combineOutcomes([]), /no process answered/);
  });
});

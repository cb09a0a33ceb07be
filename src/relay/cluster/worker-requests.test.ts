import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createWorkerRequests, type RequestableWorker } from './worker-requests.ts';

/** A worker whose channel is open, closed, or closes during the send (the callback gets the error). */
function fakeWorker(channel: 'open' | 'closed' | 'closing') {
  const sent: unknown[] = [];
  const worker: RequestableWorker = {
    isConnected: () => channel !== 'closed',
    send(message, callback) {
      if (channel === 'closed') throw new Error('a closed channel is never written to');
      if (channel === 'closing') {
        process.nextTick(() => callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })));
        return false;
      }
      sent.push(message);
      process.nextTick(() => callback(null));
      return true;
    },
  };
  return { worker, sent };
}

describe('worker requests', () => {
  it('settles a request with the answer carrying its id, from that worker only', async () => {
    const requests = createWorkerRequests();
    const { worker, sent } = fakeWorker('open');
    const other = fakeWorker('open').worker;
    const answer = requests.ask<string>(worker, 'worker 1', { op: 'status' });
    const { id } = sent[0] as { id: number };
    requests.onMessage(other, { kind: 'ambit:response', id, ok: true, result: 'not yours' });
    requests.onMessage(worker, { kind: 'ambit:response', id, ok: true, result: 'ready' });
    assert.equal(await answer, 'ready');
  });

  it('fails, without an error event, a request to a worker whose channel is closed or closes during the send', async () => {
    const requests = createWorkerRequests();
    await assert.rejects(
      requests.ask(fakeWorker('closed').worker, 'worker 1', { op: 'metrics' }),
      /worker 1 is not connected/,
    );
    await assert.rejects(
      requests.ask(fakeWorker('closing').worker, 'worker 2', { op: 'reload-all' }),
      /worker 2 could not be asked: write EPIPE/,
    );
  });

  it('fails the requests of a worker that goes away, and one that does not answer in time', async () => {
    const requests = createWorkerRequests();
    const { worker } = fakeWorker('open');
    const reload = requests.ask(worker, 'worker 1', { op: 'reload-all' });
    requests.abandon(worker, 'worker 1 exited');
    await assert.rejects(reload, /worker 1 exited/);
    await assert.rejects(requests.ask(worker, 'worker 1', { op: 'status' }, 10), /did not answer status/);
  });

  it('passes a worker-side failure on with the worker named', async () => {
    const requests = createWorkerRequests();
    const { worker, sent } = fakeWorker('open');
    const answer = requests.ask(worker, 'worker 3', { op: 'reload-all' });
    requests.onMessage(worker, {
      kind: 'ambit:response',
      id: (sent[0] as { id: number }).id,
      ok: false,
      error: 'boom',
    });
    await assert.rejects(answer, /worker 3: boom/);
  });
});

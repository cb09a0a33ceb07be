import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSemaphore, PermitTimeout } from './create-semaphore.ts';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
};

describe('createSemaphore', () => {
  it('runs at most `limit` tasks at once and starts the waiting ones in arrival order', async () => {
    const permits = createSemaphore(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, index) =>
      permits.run(async () => {
        started.push(index);
        await gate.promise;
        return index;
      }),
    );
    await Promise.resolve();
    assert.deepEqual(started, [0, 1]);
    assert.equal(permits.inFlight, 2);
    assert.equal(permits.waiting, 2);
    gates[1]?.resolve();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, [0, 1, 2]);
    for (const gate of gates) gate.resolve();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3]);
    assert.equal(permits.inFlight, 0);
    assert.equal(permits.waiting, 0);
  });

  it('gives the permit back when a task fails, synchronously or not', async () => {
    const permits = createSemaphore(1);
    await assert.rejects(
      permits.run(() => {
        throw new Error('sync');
      }),
      /sync/,
    );
    await assert.rejects(
      permits.run(async () => {
        throw new Error('async');
      }),
      /async/,
    );
    assert.equal(permits.inFlight, 0);
    assert.equal(await permits.run(async () => 'free again'), 'free again');
  });

  it('gives up a wait at its waitUntil: the task never runs and the queue goes on', async () => {
    const permits = createSemaphore(1);
    const gate = deferred();
    const holder = permits.run(() => gate.promise);
    let ran = false;
    const late = permits.run(async () => {
      ran = true;
    }, performance.now() + 20);
    const next = permits.run(async () => 'next');
    await assert.rejects(late, PermitTimeout);
    assert.equal(permits.waiting, 1);
    gate.resolve();
    await holder;
    assert.equal(await next, 'next');
    assert.equal(ran, false);
    assert.equal(permits.inFlight, 0);
  });

  it('runs at once when a permit is free, whatever its waitUntil', async () => {
    const permits = createSemaphore(1);
    assert.equal(await permits.run(async () => 'free', performance.now() - 1), 'free');
  });
});

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { whileAnswering } from './while-answering.ts';

const OPTIONS = { everyMs: 1000, silentMs: 10_000, label: 'worker 2' };

/** A promise with its settling functions, settled by the test. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets the promise callbacks queued by a tick run. */
const settle = () => new Promise<void>((done) => setImmediate(done));

describe('waiting for a worker only while it answers', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('waits as long as the work takes while every ping is answered', async () => {
    const work = deferred<string>();
    let pings = 0;
    const answer = whileAnswering(
      work.promise,
      async () => {
        pings++;
      },
      OPTIONS,
    );
    for (let k = 0; k < 100; k++) {
      mock.timers.tick(OPTIONS.everyMs);
      await settle();
    }
    assert.equal(pings, 100);
    work.resolve('done');
    assert.equal(await answer, 'done');
    // Nothing more is asked once the work is over.
    mock.timers.tick(10 * OPTIONS.everyMs);
    await settle();
    assert.equal(pings, 100);
  });

  it('gives up on a worker that answers no ping, leaving the work to it', async () => {
    const work = deferred<string>();
    const pings: { silentMs: number; answer: ReturnType<typeof deferred<void>> }[] = [];
    const answer = whileAnswering(
      work.promise,
      (silentMs) => {
        const ping = deferred<void>();
        pings.push({ silentMs, answer: ping });
        return ping.promise;
      },
      OPTIONS,
    );
    mock.timers.tick(OPTIONS.everyMs);
    await settle();
    assert.equal(pings.length, 1);
    assert.equal(pings[0]?.silentMs, OPTIONS.silentMs);
    // A ping is asked only once the previous one has been answered.
    mock.timers.tick(5 * OPTIONS.everyMs);
    await settle();
    assert.equal(pings.length, 1);
    pings[0]?.answer.reject(new Error('worker 2 did not answer ping'));
    await assert.rejects(answer, /worker 2 stopped answering/);
  });

  it('passes the work failure on as it is', async () => {
    const work = deferred<string>();
    const answer = whileAnswering(work.promise, async () => {}, OPTIONS);
    work.reject(new Error('worker 2 exited'));
    await assert.rejects(answer, /worker 2 exited/);
  });
});

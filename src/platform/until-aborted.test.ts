import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { untilAborted } from './until-aborted.ts';

const never = new Promise<never>(() => {});

describe('untilAborted', () => {
  it('settles as the work does while the signal is not aborted', async () => {
    const signal = new AbortController().signal;
    assert.equal(await untilAborted(Promise.resolve(7), signal), 7);
    await assert.rejects(untilAborted(Promise.reject(new Error('failed')), signal), /failed/);
  });

  it('rejects with the reason once the signal aborts, the work still running', async () => {
    const stop = new AbortController();
    const waiting = untilAborted(never, stop.signal);
    stop.abort(new Error('stopped'));
    await assert.rejects(waiting, /stopped/);
  });

  it('rejects at once when the signal has aborted already', async () => {
    await assert.rejects(untilAborted(never, AbortSignal.abort(new Error('before'))), /before/);
  });

  it('leaves no unhandled rejection when the work fails after the abort', async () => {
    const stop = new AbortController();
    let fail: (error: Error) => void = () => {};
    const work = new Promise<never>((_, reject) => {
      fail = reject;
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const waiting = untilAborted(work, stop.signal);
      stop.abort(new Error('stopped'));
      await assert.rejects(waiting, /stopped/);
      fail(new Error('late failure'));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

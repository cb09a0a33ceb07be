import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { createLogger } from '../../platform/log.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import { reloadsAtStop } from './reloads-at-stop.ts';

const GRACE_MS = 1000;

function start() {
  const lines: Record<string, unknown>[] = [];
  const destination = {
    write: (line: string) => lines.push(JSON.parse(line)),
  } as unknown as NodeJS.WritableStream;
  const reloads = reloadsAtStop(GRACE_MS, createLogger({ name: 'reloads-at-stop', destination }));
  return { reloads, lines };
}

/** A reload that runs until the test settles it. */
function pending<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

async function shuttingDown(promise: Promise<unknown>): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isProblem(error));
    assert.equal(error.code, 'http.shutting_down');
    assert.equal(error.status, 503);
    assert.match(error.detail ?? '', /reload/);
    return true;
  });
}

describe('admin reloads while the relay stops', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('passes a reload through, outcome or failure, while the relay is not stopping', async () => {
    const { reloads, lines } = start();
    const ok = pending<string>();
    const answered = reloads.bounded(ok.promise);
    mock.timers.tick(10 * GRACE_MS);
    ok.resolve('outcome');
    assert.equal(await answered, 'outcome');
    await assert.rejects(reloads.bounded(Promise.reject(new Error('no process answered'))), {
      message: 'no process answered',
    });
    assert.deepEqual(lines, []);
  });

  it('answers a reload that finishes within the grace with its outcome', async () => {
    const { reloads, lines } = start();
    const reload = pending<string>();
    const answered = reloads.bounded(reload.promise);
    reloads.stop();
    mock.timers.tick(GRACE_MS - 1);
    reload.resolve('outcome');
    assert.equal(await answered, 'outcome');
    mock.timers.tick(1);
    assert.deepEqual(lines, []);
  });

  it('answers every reload still running at the end of the grace 503 http.shutting_down, and says so once', async () => {
    const { reloads, lines } = start();
    const first = pending<string>();
    const second = pending<string>();
    const answers = [reloads.bounded(first.promise), reloads.bounded(second.promise)];
    reloads.stop();
    mock.timers.tick(GRACE_MS);
    for (const answer of answers) await shuttingDown(answer);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.reloads, 2);
    assert.equal(lines[0]?.level, 40);
    // Their late outcome, or failure, reaches nobody and fails nothing.
    first.resolve('late');
    second.reject(new Error('sources closed'));
  });

  it('gives a reload started during the stop only what is left of the grace', async () => {
    const { reloads } = start();
    reloads.stop();
    mock.timers.tick(GRACE_MS / 2);
    const reload = pending<string>();
    const answered = reloads.bounded(reload.promise);
    mock.timers.tick(GRACE_MS / 2);
    await shuttingDown(answered);
  });

  it('refuses a reload started after the grace at once; its failure later is not unhandled', async () => {
    const { reloads } = start();
    reloads.stop();
    mock.timers.tick(GRACE_MS);
    const reload = pending<string>();
    await shuttingDown(reloads.bounded(reload.promise));
    reload.reject(new Error('sources closed'));
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('counts the grace from the first stop: a second does not extend it', async () => {
    const { reloads } = start();
    const answered = reloads.bounded(pending<string>().promise);
    reloads.stop();
    mock.timers.tick(GRACE_MS / 2);
    reloads.stop();
    mock.timers.tick(GRACE_MS / 2);
    await shuttingDown(answered);
  });

  it('abandons nothing once the listener is closed', async () => {
    const { reloads, lines } = start();
    const reload = pending<string>();
    const answered = reloads.bounded(reload.promise);
    reloads.stop();
    reloads.closed();
    mock.timers.tick(GRACE_MS);
    reload.resolve('outcome');
    assert.equal(await answered, 'outcome');
    assert.deepEqual(lines, []);
  });
});

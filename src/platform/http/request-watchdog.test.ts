import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { createRequestWatchdog, liveDeadline, requestDeadline } from './request-watchdog.ts';
import type { RouteReply, RouteRequest } from './route-types.ts';

const request = (id: string) => ({ id, raw: {} }) as RouteRequest;
const reply = {} as RouteReply;

describe('request watchdog', () => {
  let clock = 0;
  beforeEach(() => {
    clock = 0;
    mock.timers.enable({ apis: ['setInterval'] });
  });
  afterEach(() => mock.timers.reset());

  const start = () => {
    const timedOut: string[] = [];
    const watchdog = createRequestWatchdog(
      100,
      (r) => timedOut.push(r.id),
      () => clock,
    );
    return { watchdog, timedOut };
  };
  // Advances the monotonic clock and the interval together, as real time would.
  const advance = (ms: number) => {
    clock += ms;
    mock.timers.tick(ms);
  };

  it('times out only requests past their deadline, oldest first', () => {
    const { watchdog, timedOut } = start();
    watchdog.watch(request('a'), reply);
    advance(50);
    watchdog.watch(request('b'), reply);
    watchdog.watch(request('c'), reply);
    advance(50);
    assert.deepEqual(timedOut, ['a']);
    advance(50);
    assert.deepEqual(timedOut, ['a', 'b', 'c']);
  });

  it('tells when a watched request will be answered, until it is answered or released', () => {
    const { watchdog } = start();
    const [a, b] = [request('a'), request('b')];
    advance(10);
    watchdog.watch(a, reply);
    watchdog.watch(b, reply);
    assert.equal(requestDeadline(a), 110);
    advance(100);
    assert.equal(requestDeadline(a), undefined);
    watchdog.release(b);
    assert.equal(requestDeadline(b), undefined);
    assert.equal(requestDeadline(request('never watched')), undefined);
  });

  it('never times out a released request, wherever it sits in the list', () => {
    const { watchdog, timedOut } = start();
    const [a, b, c, d] = [request('a'), request('b'), request('c'), request('d')];
    for (const r of [a, b, c, d]) watchdog.watch(r, reply);
    watchdog.release(b); // middle
    watchdog.release(a); // head
    watchdog.release(d); // tail
    advance(125);
    assert.deepEqual(timedOut, ['c']);
    // Releasing twice, or a request never watched, is harmless.
    watchdog.release(c);
    watchdog.release(request('x'));
    watchdog.watch(request('e'), reply);
    advance(125);
    assert.deepEqual(timedOut, ['c', 'e']);
  });

  it('brings the deadline of a request whose client went away to now, and no longer times it out', () => {
    const { watchdog, timedOut } = start();
    const [a, b] = [request('a'), request('b')];
    watchdog.watch(a, reply);
    watchdog.watch(b, reply);
    // Taken by the work done for it before the client went away: it follows the request.
    const deadline = liveDeadline(a);
    assert.equal(deadline.at, 100);
    advance(30);
    assert.equal(watchdog.abandon(a.raw)?.request, a);
    assert.equal(deadline.at, 30);
    assert.equal(requestDeadline(a), undefined);
    // Once only: the request is no longer watched.
    assert.equal(watchdog.abandon(a.raw), undefined);
    advance(100);
    assert.deepEqual(timedOut, ['b']);
  });

  it('leaves alone the deadline of a request answered before its client went away', () => {
    const { watchdog } = start();
    const a = request('a');
    watchdog.watch(a, reply);
    const deadline = liveDeadline(a);
    watchdog.release(a);
    advance(30);
    assert.equal(watchdog.abandon(a.raw), undefined);
    assert.equal(deadline.at, 100);
    // A request no longer watched has had its answer: its deadline has passed.
    assert.equal(liveDeadline(a).at, Number.NEGATIVE_INFINITY);
  });

  it('stop forgets every watched request', () => {
    const { watchdog, timedOut } = start();
    watchdog.watch(request('a'), reply);
    watchdog.stop();
    advance(500);
    assert.deepEqual(timedOut, []);
  });
});

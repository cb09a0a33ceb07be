import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { createLivePool, type PooledConnection } from './live-pool.ts';
import { classifyPgError } from './read-only-session.ts';

class FakeConnection implements PooledConnection {
  usable = true;
  stalled = false;
  closed = false;
  readonly id: number;
  constructor(id: number) {
    this.id = id;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

function pool(options: { max: number; depth: number; acquireTimeoutMs?: number; fail?: () => boolean }) {
  const opened: FakeConnection[] = [];
  let time = 0;
  const live = createLivePool<FakeConnection>({
    open: async () => {
      if (options.fail?.()) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      const connection = new FakeConnection(opened.length + 1);
      opened.push(connection);
      return connection;
    },
    max: options.max,
    depth: options.depth,
    acquireTimeoutMs: options.acquireTimeoutMs ?? 1000,
    idleTimeoutMs: 30_000,
    now: () => time,
  });
  return {
    live,
    opened,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

const ids = (connections: readonly FakeConnection[]) => connections.map((connection) => connection.id);

describe('the live connection pool', () => {
  it('fills one connection up to its pipeline depth before opening another', async () => {
    const { live, opened } = pool({ max: 8, depth: 3 });
    const taken = [];
    for (let read = 0; read < 7; read++) taken.push(await live.acquire());
    assert.deepEqual(ids(taken), [1, 1, 1, 2, 2, 2, 3]);
    assert.equal(opened.length, 3);
    live.release(taken[0] as FakeConnection);
    assert.equal((await live.acquire()).id, 1, 'room on the first connection is used first');
    await live.end();
  });

  it('passes over a stalled connection while another has room or can be opened', async () => {
    const { live, opened } = pool({ max: 2, depth: 8 });
    const first = await live.acquire();
    first.stalled = true;
    assert.equal((await live.acquire()).id, 2, 'a new connection rather than a place behind the slow read');
    assert.equal((await live.acquire()).id, 2);
    const second = opened[1] as FakeConnection;
    second.stalled = true;
    assert.equal((await live.acquire()).id, 1, 'all stalled and none may open: the first with room');
    first.stalled = false;
    assert.equal((await live.acquire()).id, 1, 'moving again, it is first in line again');
    await live.end();
  });

  it('a connection that cannot be opened (too many clients) leaves the read behind a stalled one, not failed', async () => {
    let refuse = false;
    const { live, opened } = pool({ max: 2, depth: 8, fail: () => refuse });
    const first = await live.acquire();
    first.stalled = true;
    refuse = true;
    assert.equal((await live.acquire()).id, 1, 'the open connection with room serves it');
    assert.equal(opened.length, 1);
    await live.end();
  });

  it('a failed open leaves the read waiting for room on the open connections when none has any', async () => {
    // A role whose CONNECTION LIMIT is below live_max_connections: its connections work, and a read beyond their
    // room waits its turn instead of answering 503.
    let refuse = false;
    const { live, opened } = pool({ max: 2, depth: 1, fail: () => refuse });
    const first = await live.acquire();
    refuse = true;
    const waiting = live.acquire();
    let settled = false;
    void waiting.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'the read waits while the open connection is busy');
    live.release(first);
    assert.equal((await waiting).id, 1, 'room on the open connection serves it');
    assert.equal(opened.length, 1);
    await live.end();
  });

  it('a read waiting after a failed open fails as unavailable when no room comes in time', async () => {
    let refuse = false;
    const { live } = pool({ max: 2, depth: 1, acquireTimeoutMs: 20, fail: () => refuse });
    await live.acquire();
    refuse = true;
    await assert.rejects(live.acquire(), (error: Error) => classifyPgError(error) === 'unavailable');
    await live.end();
  });

  it('depth 1 gives each read a connection of its own', async () => {
    const { live } = pool({ max: 4, depth: 1 });
    const taken = await Promise.all([live.acquire(), live.acquire(), live.acquire()]);
    assert.deepEqual(ids(taken), [1, 2, 3]);
    await live.end();
  });

  it('never opens more than max; a read waits for room and gets it in arrival order', async () => {
    const { live, opened } = pool({ max: 2, depth: 1 });
    const first = await live.acquire();
    const second = await live.acquire();
    const order: string[] = [];
    const waiting = [
      live.acquire().then((connection) => order.push(`a:${connection.id}`)),
      live.acquire().then((connection) => order.push(`b:${connection.id}`)),
    ];
    assert.equal(live.size, 2);
    live.release(second);
    live.release(first);
    await Promise.all(waiting);
    assert.deepEqual(order, ['a:2', 'b:1']);
    assert.equal(opened.length, 2);
    await live.end();
  });

  it('reads that queued while the only connection opened share it as soon as it is open, with no release', async () => {
    const { live, opened } = pool({ max: 1, depth: 3 });
    // Asked for together: the first opens the connection, the others find every place taken and wait.
    const taken = await Promise.all([live.acquire(), live.acquire(), live.acquire()]);
    assert.deepEqual(ids(taken), [1, 1, 1]);
    assert.equal(opened.length, 1);
    await live.end();
  });

  it('a read that finds no room in time fails as unavailable', async () => {
    const { live } = pool({ max: 1, depth: 1, acquireTimeoutMs: 20 });
    await live.acquire();
    await assert.rejects(live.acquire(), (error: Error) => classifyPgError(error) === 'unavailable');
    await live.end();
  });

  it('a connection that failed is closed once its reads are done, and a waiting read gets a new one', async () => {
    const { live, opened } = pool({ max: 1, depth: 2 });
    const a = await live.acquire();
    const b = await live.acquire();
    const waiting = live.acquire();
    a.usable = false;
    live.release(a);
    assert.equal(a.closed, false, 'still has a read in flight');
    live.release(b);
    assert.equal(a.closed, true);
    const next = await waiting;
    assert.equal(next.id, 2);
    assert.deepEqual(ids(opened), [1, 2]);
    await live.end();
  });

  it('an unusable idle connection is skipped and closed on the next acquire', async () => {
    const { live } = pool({ max: 2, depth: 4 });
    const first = await live.acquire();
    live.release(first);
    first.usable = false;
    const next = await live.acquire();
    assert.equal(next.id, 2);
    assert.equal(first.closed, true);
    await live.end();
  });

  it('a connection that cannot be opened fails the read as unavailable and frees its place', async () => {
    let refuse = true;
    const { live } = pool({ max: 1, depth: 1, fail: () => refuse });
    await assert.rejects(live.acquire(), (error: Error) => classifyPgError(error) === 'unavailable');
    assert.equal(live.size, 0);
    refuse = false;
    assert.equal((await live.acquire()).id, 1);
    await live.end();
  });

  it('reads waiting for a place try again as soon as a connection attempt fails', async () => {
    let attempts = 0;
    // Long enough that a waiter served only by its timeout would fail the test's own deadline below.
    const { live } = pool({ max: 1, depth: 1, acquireTimeoutMs: 60_000, fail: () => ++attempts === 1 });
    const first = live.acquire();
    const second = live.acquire();
    const third = live.acquire();
    await assert.rejects(first, (error: Error) => classifyPgError(error) === 'unavailable');
    const deadline = new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error('the waiting read was not served')), 2000).unref();
    });
    const served = await Promise.race([second, deadline]);
    assert.equal(served.id, 1);
    assert.equal(attempts, 2);
    live.release(served);
    assert.equal((await Promise.race([third, deadline])).id, 1);
    await live.end();
  });

  it('a connection idle past idleTimeoutMs is closed; a busy one is kept', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const { live, advance } = pool({ max: 2, depth: 1 });
      const idle = await live.acquire();
      const busy = await live.acquire();
      live.release(idle);
      advance(30_001);
      mock.timers.tick(15_000);
      assert.equal(idle.closed, true);
      assert.equal(busy.closed, false);
      assert.equal(live.size, 1);
      live.release(busy);
      await live.end();
    } finally {
      mock.timers.reset();
    }
  });

  it('end() fails waiting reads, closes every connection, busy ones included, and refuses new reads', async () => {
    const { live, opened } = pool({ max: 1, depth: 1 });
    const busy = await live.acquire();
    const waiting = live.acquire();
    const ended = live.end();
    await assert.rejects(waiting, /closed/);
    await ended;
    assert.equal(opened[0]?.closed, true, 'nothing waits for its read any more');
    live.release(busy);
    assert.equal(live.size, 0);
    await assert.rejects(live.acquire(), /closed/);
  });
});

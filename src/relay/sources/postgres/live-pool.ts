// Up to `max` live connections shared by a table's reads, opened on demand. Each connection carries up to `depth`
// pipelined reads: a read goes to the first connection (in opening order) with room, so under load reads share a
// few connections, their writes and the database backends' attention, and a further connection opens only when
// those are full. A connection whose reads have stopped completing (a slow statement at their head) is passed
// over while another has room or can be opened. A read waits for room at most `acquireTimeoutMs`; a connection
// with nothing to do for `idleTimeoutMs` is closed.

export interface PooledConnection {
  readonly usable: boolean;
  /** Reads are in flight but none has completed for a while: new reads had better go elsewhere. */
  readonly stalled: boolean;
  close(): Promise<void>;
}

export interface LivePoolOptions<C extends PooledConnection> {
  readonly open: () => Promise<C>;
  readonly max: number;
  /** Reads one connection may have in flight at once (1: one read per connection at a time). */
  readonly depth: number;
  readonly acquireTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly now?: () => number;
}

export interface LivePool<C extends PooledConnection> {
  /** A connection with room for one more read; rejects when none can be opened or none has room in time. */
  acquire(): Promise<C>;
  /** Gives back the room `acquire` took; a connection no longer usable is closed once its reads are done. */
  release(connection: C): void;
  /** Connections open or opening. */
  readonly size: number;
  /** Fails the reads waiting for room and closes every connection, those with reads in flight included. */
  end(): Promise<void>;
}

interface Entry<C> {
  readonly connection: C;
  reads: number;
  lastUsed: number;
}

interface Waiter<C> {
  readonly resolve: (connection: C) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** The message `pg.Pool` uses for the same case, so one classification covers both. */
const ACQUIRE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

export function createLivePool<C extends PooledConnection>(options: LivePoolOptions<C>): LivePool<C> {
  const now = options.now ?? Date.now;
  const entries: Entry<C>[] = [];
  const byConnection = new Map<C, Entry<C>>();
  const waiters: Waiter<C>[] = [];
  let opening = 0;
  let ended = false;
  const sweeper = setInterval(sweep, Math.max(1000, Math.floor(options.idleTimeoutMs / 2)));
  sweeper.unref();

  function sweep(): void {
    const cutoff = now() - options.idleTimeoutMs;
    for (const entry of [...entries]) {
      if (entry.reads === 0 && entry.lastUsed < cutoff) discard(entry);
    }
  }

  function discard(entry: Entry<C>): void {
    entries.splice(entries.indexOf(entry), 1);
    byConnection.delete(entry.connection);
    void entry.connection.close();
  }

  function take(entry: Entry<C>): C {
    entry.reads += 1;
    entry.lastUsed = now();
    return entry.connection;
  }

  async function openOne(): Promise<C> {
    opening += 1;
    let connection: C;
    try {
      connection = await options.open();
    } catch (error) {
      opening -= 1;
      // The place this attempt held is free again: reads waiting for one try now rather than at their timeout.
      if (!ended) serveWaiters();
      throw error;
    }
    opening -= 1;
    if (ended) {
      void connection.close();
      throw new Error('the live connection pool is closed');
    }
    const entry: Entry<C> = { connection, reads: 0, lastUsed: now() };
    entries.push(entry);
    byConnection.set(connection, entry);
    const connectionFor = take(entry);
    // Reads that queued while it opened (every place taken) get its remaining room now, not at the next release:
    // that may be a slow read's end, or never before their acquire timeout.
    serveWaiters();
    return connectionFor;
  }

  /**
   * Where the next read goes: the first connection with room that is not stalled, else a new connection when one
   * may be opened, else the first stalled one with room; undefined when it has to wait. Unusable idle connections
   * are dropped on the way.
   */
  function place(): Entry<C> | 'open' | undefined {
    let stalled: Entry<C> | undefined;
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index] as Entry<C>;
      if (!entry.connection.usable) {
        if (entry.reads === 0) {
          discard(entry);
          index -= 1;
        }
        continue;
      }
      if (entry.reads >= options.depth) continue;
      if (!entry.connection.stalled) return entry;
      stalled ??= entry;
    }
    return entries.length + opening < options.max ? 'open' : stalled;
  }

  /**
   * Opens a connection for a read that `place` sent to a new one; when the server refuses it (too many clients,
   * 53300, or any failure to connect) the read takes room on an open connection instead, a stalled one included,
   * or waits for room on one when none has any (a role whose connection limit is below `max`): behind a slow read
   * beats a 503 while the connections already open still work. A read that found none open fails.
   */
  function openOrFallBack(): Promise<C> {
    const usable = () => entries.some((entry) => entry.connection.usable);
    const hadOpen = usable();
    return openOne().catch((error: unknown) => {
      if (ended) throw error;
      const fallback = entries.find((entry) => entry.connection.usable && entry.reads < options.depth);
      if (fallback !== undefined) return take(fallback);
      if (!hadOpen || !usable()) throw error;
      return waitForRoom();
    });
  }

  /** A read for which every place is taken: served in arrival order as room appears, else failed at the timeout. */
  function waitForRoom(): Promise<C> {
    return new Promise<C>((resolve, reject) => {
      const waiter: Waiter<C> = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(new Error(ACQUIRE_TIMEOUT_MESSAGE));
        }, options.acquireTimeoutMs),
      };
      waiters.push(waiter);
    });
  }

  /** Room appeared or a place freed up: the longest waiters get it, opening connections as they may. */
  function serveWaiters(): void {
    while (waiters.length > 0) {
      const target = place();
      if (target === undefined) return;
      const waiter = waiters.shift() as Waiter<C>;
      clearTimeout(waiter.timer);
      if (target === 'open') openOrFallBack().then(waiter.resolve, waiter.reject);
      else waiter.resolve(take(target));
    }
  }

  return {
    get size() {
      return entries.length + opening;
    },
    acquire() {
      if (ended) return Promise.reject(new Error('the live connection pool is closed'));
      const target = place();
      if (target === 'open') return openOrFallBack();
      if (target !== undefined) return Promise.resolve(take(target));
      return waitForRoom();
    },
    release(connection) {
      const entry = byConnection.get(connection);
      if (entry === undefined) return;
      entry.reads -= 1;
      entry.lastUsed = now();
      if (entry.reads === 0 && (ended || !connection.usable)) discard(entry);
      if (!ended) serveWaiters();
    },
    async end() {
      ended = true;
      clearInterval(sweeper);
      for (const waiter of waiters.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error('the live connection pool is closed'));
      }
      // Busy connections too: the pool ends once nothing waits for their reads (a shutdown's drain is over), and
      // a statement waiting for a lock would otherwise hold the process and its backend until its time limit.
      await Promise.all(
        entries.splice(0).map((entry) => {
          byConnection.delete(entry.connection);
          return entry.connection.close();
        }),
      );
    },
  };
}

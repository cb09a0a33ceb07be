import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../platform/log.ts';
import type { RelayConfig } from '../config/schema.ts';
import type { Every } from '../reload/refresh-scheduler.ts';
import type { ReloadOutcome } from '../reload/reloader.ts';
import { type RefreshAnswer, startRefreshRounds } from './refresh-rounds.ts';

/** Table `m` polled by mtime every 2 s, `i` reloaded every 5 s (its dataset's default), `x` manual. */
const CONFIG = {
  datasets: [
    {
      id: 'd',
      defaults: { refresh: { mode: 'interval', interval: 5000 } },
      tables: [
        { id: 'm', refresh: { mode: 'mtime', interval: 2000 } },
        { id: 'i' },
        { id: 'x', refresh: { mode: 'manual', interval: 60000 } },
      ],
    },
  ],
} as unknown as RelayConfig;

/** A worker's answer: it loaded `version` (swapping it in), or reloaded nothing and still serves `version`. */
const loaded = (version: string): RefreshAnswer => ({
  outcome: {
    ok: true,
    changed: true,
    counts: { total: 1, succeeded: 1, failed: 0 },
    failures: [],
    generation: 'g',
    versions: [{ dataset_id: 'd', table_id: 'm', version }],
  } satisfies ReloadOutcome,
  version,
});
const unchanged = (version: string): RefreshAnswer => ({ outcome: null, version });

function rounds(answer: (worker: string, tableId: string) => Promise<RefreshAnswer>) {
  const timers = new Map<number, () => void>();
  const every: Every = (ms, run) => {
    timers.set(ms, run);
    return () => timers.delete(ms);
  };
  const asked: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const destination = {
    write: (line: string) => lines.push(JSON.parse(line)),
  } as unknown as NodeJS.WritableStream;
  const running = startRefreshRounds({
    config: CONFIG,
    logger: createLogger({ name: 'test', level: 'info', destination }),
    workers: () => ['w1', 'w2'],
    refresh: (worker, datasetId, tableId) => {
      asked.push(`${worker}:${datasetId}/${tableId}`);
      return answer(worker, tableId);
    },
    every,
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { timers, asked, lines, running, settle };
}

describe('refresh rounds under --workers', () => {
  it('runs each scheduled table at its interval in every worker at once, never a manual one', async () => {
    const { timers, asked, running, settle } = rounds(async () => unchanged('v1'));
    assert.deepEqual([...timers.keys()].sort(), [2000, 5000]);
    timers.get(2000)?.();
    timers.get(5000)?.();
    await settle();
    assert.deepEqual(asked, ['w1:d/m', 'w2:d/m', 'w1:d/i', 'w2:d/i']);
    await running.stop();
    assert.equal(timers.size, 0, 'no round after stop');
  });

  it('does not stack a round on one still running, and stop waits for it', async () => {
    const finishers: (() => void)[] = [];
    const { timers, asked, running, settle } = rounds(
      () => new Promise((resolve) => finishers.push(() => resolve(unchanged('v1')))),
    );
    timers.get(2000)?.();
    timers.get(2000)?.();
    await settle();
    assert.equal(asked.length, 2, 'one round, both workers');
    let stopped = false;
    const stopping = running.stop().then(() => {
      stopped = true;
    });
    await settle();
    assert.equal(stopped, false);
    for (const finish of finishers) finish();
    await stopping;
  });

  it('says at info that every worker serves the change, and warns while they serve different versions', async () => {
    let answers: Record<string, RefreshAnswer> = { w1: loaded('v2'), w2: loaded('v2') };
    const { timers, lines, running, settle } = rounds(async (worker) => answers[worker] as RefreshAnswer);
    const round = async () => {
      timers.get(2000)?.();
      await settle();
      await settle();
    };
    await round();
    assert.equal(lines.at(-1)?.msg, 'refresh reloaded the table in every relay process');
    assert.equal(lines.at(-1)?.level, 30);
    assert.deepEqual(
      [lines.at(-1)?.table_id, lines.at(-1)?.trigger, lines.at(-1)?.processes, lines.at(-1)?.changed],
      ['m', 'mtime', 2, 2],
    );
    // The change reached one worker in this round (the other read the file a moment before it was written): not
    // said to be everywhere; the next round brings the other, and then it is.
    answers = { w1: loaded('v3'), w2: unchanged('v2') };
    await round();
    assert.equal(lines.at(-1)?.level, 40);
    assert.match(String(lines.at(-1)?.msg), /different data after a refresh/);
    answers = { w1: unchanged('v3'), w2: loaded('v3') };
    await round();
    assert.equal(lines.at(-1)?.level, 30);
    assert.equal(lines.at(-1)?.changed, 1);
    // Every worker loaded, but not the same data (the file changed between their reads).
    answers = { w1: loaded('v4'), w2: loaded('v5') };
    await round();
    assert.equal(lines.at(-1)?.level, 40);
    await running.stop();
  });

  it('says nothing for a round that reloaded nothing, and survives a worker that does not answer', async () => {
    let first = unchanged('v1');
    const { timers, lines, running, settle } = rounds(async (worker) => {
      if (worker === 'w2') throw new Error('worker 2 exited');
      return first;
    });
    timers.get(2000)?.();
    await settle();
    await settle();
    assert.equal(lines.length, 0);
    // A change loaded by the worker that answered is not said to be everywhere.
    first = loaded('v2');
    timers.get(2000)?.();
    await settle();
    await settle();
    assert.equal(lines.at(-1)?.level, 40);
    await running.stop();
  });
});

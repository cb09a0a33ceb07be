import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceError } from '../sources/source-error.ts';
import { createHeapGuard, type HeapReading, processHeap } from './heap-guard.ts';

const MIB = 1024 * 1024;
const LIMIT = 1000 * MIB;

/** A heap whose usage the test sets, and whose collection frees what the test says is garbage. */
function fakeHeap() {
  const heap = { live: 0, garbage: 0, collections: 0 };
  return {
    heap,
    deps: {
      read: (): HeapReading => ({ used: heap.live + heap.garbage, limit: LIMIT }),
      collect: () => {
        heap.collections++;
        heap.garbage = 0;
      },
    },
  };
}

function refusal(run: () => void): SourceError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof SourceError, String(error));
    return error;
  }
  assert.fail('expected the load to be stopped');
}

describe('the heap guard of a table load', () => {
  it('lets a load go on, without collecting, while the heap is below 85% of its limit', () => {
    const { heap, deps } = fakeHeap();
    const guard = createHeapGuard('t', deps);
    heap.live = 800 * MIB;
    heap.garbage = 49 * MIB;
    guard();
    assert.equal(heap.collections, 0);
  });

  it('collects once past 85%, and goes on when what is left is garbage', () => {
    const { heap, deps } = fakeHeap();
    const guard = createHeapGuard('t', deps);
    heap.live = 840 * MIB;
    heap.garbage = 100 * MIB;
    guard();
    assert.equal(heap.collections, 1);
    // 840 MiB live leaves 160: not collected again until half of that is filled (920 MiB in use).
    heap.garbage = 70 * MIB;
    guard();
    assert.equal(heap.collections, 1);
    heap.garbage = 90 * MIB;
    guard();
    assert.equal(heap.collections, 2);
  });

  it('stops the load with ingest.memory_limit when live data passes 85% of the limit', () => {
    const { heap, deps } = fakeHeap();
    const guard = createHeapGuard('big_table', deps);
    heap.live = 870 * MIB;
    heap.garbage = 100 * MIB;
    const error = refusal(guard);
    assert.equal(error.code, 'ingest.memory_limit');
    assert.equal(error.tableId, 'big_table');
    assert.match(error.message, /870 of 1000 MiB/);
    assert.match(error.message, /materialization: live/);
    assert.match(error.message, /--max-old-space-size/);
    assert.equal(heap.collections, 1);
  });

  it('counts a row about to be read: refused when live data and the row would pass 85%', () => {
    const { heap, deps } = fakeHeap();
    const guard = createHeapGuard('big_table', deps);
    heap.live = 700 * MIB;
    heap.garbage = 100 * MIB;
    guard(140 * MIB);
    assert.equal(heap.collections, 1);
    const error = refusal(() => guard(160 * MIB));
    assert.equal(error.code, 'ingest.memory_limit');
    assert.match(error.message, /700 of 1000 MiB in use, and a row of 160 MiB to read/);
  });

  it("reads this process's heap and collects it", () => {
    const before = processHeap.read();
    assert.ok(before.used > 0 && before.used < before.limit, JSON.stringify(before));
    let garbage: unknown[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i }));
    assert.equal(garbage.length, 200_000);
    garbage = undefined;
    processHeap.collect();
    assert.ok(processHeap.read().used < before.limit);
    assert.equal(garbage, undefined);
  });
});

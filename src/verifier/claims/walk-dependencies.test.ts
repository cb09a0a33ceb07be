import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dependencyDepths, walkDependencies } from './walk-dependencies.ts';

describe('walkDependencies', () => {
  it('orders claims after their dependencies and measures the longest chain below each', () => {
    const graph = new Map([
      ['top', ['left', 'right', 'unknown']],
      ['left', ['leaf']],
      ['right', ['left']],
      ['leaf', []],
    ]);
    const { order, cycle } = walkDependencies(graph);
    assert.equal(cycle, undefined);
    assert.deepEqual(order, ['leaf', 'left', 'right', 'top']);
    const depths = dependencyDepths(graph, order);
    assert.deepEqual(depths.get('top'), { depth: 3, via: 'right' });
    assert.deepEqual(depths.get('leaf'), { depth: 0, via: undefined });
  });

  it('names the first cycle met, in sorted id order', () => {
    const graph = new Map([
      ['b', ['c']],
      ['a', ['b']],
      ['c', ['a']],
      ['d', ['d']],
    ]);
    assert.deepEqual(walkDependencies(graph).cycle, ['a', 'b', 'c', 'a']);
    assert.deepEqual(walkDependencies(new Map([['d', ['d']]])).cycle, ['d', 'd']);
  });

  it('walks a chain far longer than the call stack is deep', () => {
    const length = 20_000;
    const graph = new Map(Array.from({ length }, (_, i) => [`c${i}`, i + 1 < length ? [`c${i + 1}`] : []]));
    const { order, cycle } = walkDependencies(graph);
    assert.equal(cycle, undefined);
    assert.equal(order[0], `c${length - 1}`);
    assert.equal(dependencyDepths(graph, order).get('c0')?.depth, length - 1);
    graph.set(`c${length - 1}`, ['c0']);
    assert.equal(walkDependencies(graph).cycle?.length, length + 1);
  });
});

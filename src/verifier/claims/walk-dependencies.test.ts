import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dependencyCycles, dependencyDepths, walkDependencies } from './walk-dependencies.ts';

describe('walkDependencies', () => {
  it('orders claims after their dependencies and measures the longest chain below each', () => {
    const graph = new Map([
      ['top', ['left', 'right', 'unknown']],
      ['left', ['leaf']],
      ['right', ['left']],
      ['leaf', []],
    ]);
    const { order } = walkDependencies(graph);
    assert.deepEqual(dependencyCycles(graph), []);
    assert.deepEqual(order, ['leaf', 'left', 'right', 'top']);
    const depths = dependencyDepths(graph, order);
    assert.deepEqual(depths.get('top'), { depth: 3, via: 'right' });
    assert.deepEqual(depths.get('leaf'), { depth: 0, via: undefined });
  });

  it('names one shortest cycle for each tangle, from its smallest id, in id order', () => {
    const graph = new Map([
      ['b', ['c']],
      ['a', ['b']],
      ['c', ['a', 'b']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    // b and c form a shorter cycle than a -> b -> c -> a, but not through a, the tangle's smallest id.
    assert.deepEqual(dependencyCycles(graph), [
      ['a', 'b', 'c', 'a'],
      ['d', 'd'],
    ]);
    assert.deepEqual(dependencyCycles(new Map([['d', ['d']]])), [['d', 'd']]);
  });

  it('walks a chain far longer than the call stack is deep', () => {
    const length = 20_000;
    const graph = new Map(Array.from({ length }, (_, i) => [`c${i}`, i + 1 < length ? [`c${i + 1}`] : []]));
    const { order } = walkDependencies(graph);
    assert.deepEqual(dependencyCycles(graph), []);
    assert.equal(order[0], `c${length - 1}`);
    assert.equal(dependencyDepths(graph, order).get('c0')?.depth, length - 1);
    graph.set(`c${length - 1}`, ['c0']);
    const [cycle, ...others] = dependencyCycles(graph);
    assert.equal(cycle?.length, length + 1);
    assert.deepEqual(others, []);
  });
});

// Aliases: resolved in document order, bounded in number, and reported by line without their name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStrictYaml } from './parse-strict-yaml.ts';
import { MAX_ALIASES, yamlToPlain } from './yaml-to-plain.ts';

function plain(text: string) {
  return yamlToPlain(parseStrictYaml(text).document, text);
}

/** `count` anchors, each aliased once: no alias bomb, but resolving each alias costs the aliases before it. */
function pairs(count: number): string {
  return `a:\n${Array.from({ length: count }, (_, i) => `  - &a${i} ${i}\n  - *a${i}\n`).join('')}`;
}

describe('yamlToPlain', () => {
  it('resolves aliases up to the limit', () => {
    const result = plain(pairs(MAX_ALIASES));
    assert.ok(result.ok);
    const list = (result.value as { a: number[] }).a;
    assert.equal(list.length, 2 * MAX_ALIASES);
    assert.deepEqual(list.slice(-2), [MAX_ALIASES - 1, MAX_ALIASES - 1]);
  });

  it('refuses a document with more aliases than the limit, before resolving any', () => {
    // Unbounded, tens of thousands of aliases take minutes to resolve (each looks back over the ones before it).
    const result = plain(pairs(MAX_ALIASES + 1));
    assert.ok(!result.ok);
    assert.deepEqual(
      result.problems.map((problem) => problem.message),
      [`more than ${MAX_ALIASES} aliases (refused as a resource exhaustion attempt)`],
    );
  });

  it('reports each unresolved alias at its line, without its name', () => {
    const text = `a: &set 1\nb:\n${'  - *missing\n  - *set\n'.repeat(MAX_ALIASES / 2)}`;
    const result = plain(text);
    assert.ok(!result.ok);
    assert.equal(result.problems.length, MAX_ALIASES / 2);
    assert.deepEqual([result.problems[0]?.line, result.problems.at(-1)?.line], [3, MAX_ALIASES + 1]);
    assert.ok(result.problems.every((problem) => /^unresolved alias/.test(problem.message)));
    assert.ok(!result.problems.some((problem) => problem.message.includes('missing')), 'the name is quoted');
  });
});

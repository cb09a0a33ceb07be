// Aliases: resolved in document order, bounded in number, and reported by line without their name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStrictYaml } from './parse-strict-yaml.ts';
import { MAX_ALIASES, MAX_NESTING, TOO_DEEP, yamlToPlain } from './yaml-to-plain.ts';

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

  it('reads collections nested up to the limit and refuses one level more, at its line', () => {
    // The top-level mapping is one level: `[` opens the others.
    const nested = (levels: number) => `x: 1\na: ${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}\n`;
    const deepest = plain(nested(MAX_NESTING));
    assert.ok(deepest.ok);
    const tooDeep = plain(nested(MAX_NESTING + 1));
    assert.ok(!tooDeep.ok);
    assert.deepEqual(tooDeep.problems, [{ line: 2, message: TOO_DEEP }]);
    // Block mappings count the same.
    const block = Array.from({ length: MAX_NESTING }, (_, i) => `${'  '.repeat(i)}k${i}:\n`).join('');
    assert.deepEqual(plain(`${block}${'  '.repeat(MAX_NESTING)}leaf: 1\n`).ok, false);
  });

  it('names nesting too deep for the parser itself as nesting, not as a stack overflow', () => {
    const text = `a: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    const { problems } = parseStrictYaml(text);
    assert.equal(problems.length, 1);
    assert.match(problems[0]?.message ?? '', new RegExp(`^${TOO_DEEP} at line 1, column \\d+$`));
  });
});

// Aliases: resolved in document order, bounded in number, and reported by line without their name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStrictYaml } from './parse-strict-yaml.ts';
import { MAX_ALIAS_EXPANSION, MAX_ALIASES, MAX_NESTING, TOO_DEEP, yamlToPlain } from './yaml-to-plain.ts';

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

  it('resolves one anchor aliased up to the alias limit, as a shared block of many claims is', () => {
    const text = `d: &d { default: predicate, allowed: [predicate] }\nc:\n${'  - *d\n'.repeat(MAX_ALIASES)}`;
    const result = plain(text);
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    assert.equal((result.value as { c: unknown[] }).c.length, MAX_ALIASES);
  });

  it('refuses aliases that copy a large collection many times, whatever their number', () => {
    // Sixty aliases of a 2,000-item list: far fewer aliases than the limit, but every copy is walked afterwards.
    const items = Math.ceil(MAX_ALIAS_EXPANSION / 50);
    const text = `a: &a [${Array.from({ length: items }, () => '1').join(',')}]\nb: [${'*a, '.repeat(59)}*a]\n`;
    const result = plain(text);
    assert.ok(!result.ok);
    assert.deepEqual(
      result.problems.map((problem) => problem.message),
      [
        `aliases expand to more than ${MAX_ALIAS_EXPANSION} values (refused as a resource exhaustion attempt)`,
      ],
    );
  });

  it('refuses an alias inside the collection its anchor names, at its line', () => {
    for (const text of ['x: &x [*x]\n', 'a: 1\nx: &x\n  b: *x\n', 'x: &x [[1, *x]]\n']) {
      const result = plain(text);
      assert.ok(!result.ok, text);
      assert.equal(result.problems.length, 1);
      assert.match(result.problems[0]?.message ?? '', /^an alias inside the collection its anchor names/);
      assert.equal(result.problems[0]?.line, text.split('\n').findIndex((line) => line.includes('*x')) + 1);
    }
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

  it('refuses a string or key holding a lone UTF-16 surrogate, by line, without the value', () => {
    // Only an escape in a double-quoted scalar can make one (the file itself is UTF-8): no name or value of a
    // config can be one, and code that encodes it (a URL, a header) would throw at run time.
    const result = plain('ok: "a\\uD83D\\uDE00"\nbad:\n  - "x\\uD800y-secret"\n"k\\uDC00": 1\n');
    assert.ok(!result.ok);
    assert.deepEqual(
      result.problems.map((problem) => problem.line),
      [3, 4],
    );
    for (const problem of result.problems) {
      assert.match(problem.message, /lone UTF-16 surrogate/);
      assert.doesNotMatch(problem.message, /y-secret/);
    }
    const paired = plain('ok: "a\\uD83D\\uDE00"\n');
    assert.ok(paired.ok);
    assert.deepEqual(paired.value, { ok: 'a\u{1F600}' });
  });
});

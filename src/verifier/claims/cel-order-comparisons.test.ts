import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from '@bufbuild/cel';
import { callerOrderComparisons, orderComparisonWarning } from './cel-order-comparisons.ts';

const found = (expression: string) => callerOrderComparisons(parse(expression));

describe('callerOrderComparisons', () => {
  it('finds each ordering operator between caller input and a record value, either way round', () => {
    const cases: [string, string[]][] = [
      [
        'source.person.birth_date >= ctx.target.attributes.born_after',
        ['source.person.birth_date >= ctx.target.attributes.born_after'],
      ],
      ['ctx.target.attributes.limit > source.p.income', ['ctx.target.attributes.limit > source.p.income']],
      [
        "source.p['income'] < ctx.target.identifiers['nid']",
        ['source.p["income"] < ctx.target.identifiers["nid"]'],
      ],
      ['source.p.id <= ctx.target.id', ['source.p.id <= ctx.target.id']],
      ['claims.age.value > ctx.target.attributes.min', ['claims.age.value > ctx.target.attributes.min']],
    ];
    for (const [expression, expected] of cases) assert.deepEqual(found(expression), expected, expression);
  });

  it('follows arithmetic and calls on either side', () => {
    assert.deepEqual(found('int(ctx.target.attributes.age) > source.p.age + 1'), [
      'int(ctx.target.attributes.age) > source.p.age + 1',
    ]);
    assert.deepEqual(found('timestamp(source.p.birth_date) < timestamp(ctx.target.attributes.cutoff)'), [
      'timestamp(source.p.birth_date) < timestamp(ctx.target.attributes.cutoff)',
    ]);
    assert.deepEqual(found('source.p.income > (has(ctx.target.attributes.low) ? 10 : 20)'), [
      'source.p.income > (has(ctx.target.attributes.low) ? 10 : 20)',
    ]);
    // Both on one side, by arithmetic: the caller still moves the threshold.
    assert.deepEqual(found('source.p.age - int(ctx.target.attributes.age) > 0'), [
      'source.p.age - int(ctx.target.attributes.age) > 0',
    ]);
    assert.deepEqual(found('source.p.born_year + int(ctx.target.attributes.age) < 2025'), [
      'source.p.born_year + int(ctx.target.attributes.age) < 2025',
    ]);
  });

  it('looks inside macros, nested ones included, through the variables that range over either input', () => {
    assert.deepEqual(found('ctx.target.attributes.exists(k, source.p.age > int(ctx.target.attributes[k]))'), [
      'source.p.age > int(ctx.target.attributes[k])',
    ]);
    assert.deepEqual(found('source.p.scores.all(s, s < int(ctx.target.attributes.max))'), [
      's < int(ctx.target.attributes.max)',
    ]);
    assert.deepEqual(found('ctx.target.attributes.map(k, k).exists(x, [1].all(y, x <= source.p.name))'), [
      'x <= source.p.name',
    ]);
    assert.deepEqual(found('source.p.age > size(ctx.target.attributes.filter(k, k.startsWith("x")))'), [
      'source.p.age > size(ctx.target.attributes.filter(k, k.startsWith("x")))',
    ]);
    // A variable named as a root hides it.
    assert.deepEqual(found('[1, 2].exists(ctx, ctx > source.p.age)'), []);
  });

  it('finds nothing in equality, constants, ctx.today and caller input alone', () => {
    for (const expression of [
      'source.p.birth_date == ctx.target.attributes.birth_date',
      'source.p.nid != ctx.target.identifiers.nid && ctx.target.id in source.p.ids',
      'source.p.age >= 18 && int(ctx.target.attributes.age) < 120',
      'source.p.birth_date < ctx.today && claims.alive.value',
      'int(ctx.target.attributes.age) >= 18 && ctx.target.id > "a"',
      'claims.age.version > ctx.target.attributes.v',
      'ctx.target.attributes.exists(k, k == "x") && source.p.age > 18',
      'ctx.target.attributes.map(k, source.p[k]).exists(v, v > 3)',
      'source.p.tags.filter(t, t == ctx.target.attributes.tag).size() > 0',
      'has(ctx.target.attributes.x) && [source.p.a].all(a, a > 0)',
    ]) {
      assert.deepEqual(found(expression), [], expression);
    }
  });

  it('names a long comparison by its operator and never throws, however deep the expression', () => {
    const long = `source.p.${'a'.repeat(80)} < ctx.target.id`;
    assert.deepEqual(found(long), ['<']);
    const deep = `${Array.from({ length: 3000 }, () => 'source.p.a').join(' + ')} > ctx.target.id`;
    assert.deepEqual(found(deep), ['>']);
  });
});

describe('orderComparisonWarning', () => {
  it('names the claim, the comparisons, why and what to do', () => {
    assert.equal(
      orderComparisonWarning('born-after', 'source.p.birth_date >= ctx.target.attributes.born_after'),
      'claim born-after compares caller input with a record value by order (source.p.birth_date >= ctx.target.attributes.born_after): a caller can find the value by repeated evaluations; compare for equality, or limit who may evaluate it (docs/verifier.md, Disclosure)',
    );
    const many = ['a', 'b', 'c', 'd', 'e'].map((f) => `source.p.${f} < ctx.target.id`).join(' || ');
    assert.match(orderComparisonWarning('x', many) ?? '', /\(source\.p\.a < ctx\.target\.id; .*; 2 more\)/);
  });

  it('says nothing of a rule that compares no caller input by order, or does not parse', () => {
    assert.equal(orderComparisonWarning('alive', '!source.p.deceased'), undefined);
    assert.equal(orderComparisonWarning('broken', 'source.p.a <'), undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from '@bufbuild/cel';
import { celTargetInputs } from './cel-target-inputs.ts';

describe('celTargetInputs', () => {
  const cases: [string, string[]][] = [
    ['ctx.target.attributes.income < 1000', ['target.attributes.income']],
    [
      "ctx.target.attributes['income'] < 1 && ctx.target.identifiers.national_id != ''",
      ['target.attributes.income', 'target.identifiers.national_id'],
    ],
    // A member deeper down still needs the attribute itself.
    ['ctx.target.attributes.address.city == "x"', ['target.attributes.address']],
    // Tested with has() anywhere: optional, even where it is read.
    ['has(ctx.target.attributes.x) ? ctx.target.attributes.x > 1 : true', []],
    // The whole map, a computed key, the id (null when not sent) and other roots are no single input.
    ["'k' in ctx.target.attributes && ctx.target.id == 'x' && ctx.purpose != ''", []],
    ["ctx.target.attributes['a' + 'b'] == 1", []],
    ['source.person.income < ctx.target.attributes.limit', ['target.attributes.limit']],
    // A comprehension variable named ctx hides the root.
    ['[1].all(ctx, ctx.target.attributes.z == 1)', []],
  ];
  for (const [expression, expected] of cases) {
    it(`${expression} needs ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(celTargetInputs(parse(expression).expr), expected);
    });
  }

  it('finds the inputs of an expression nested as deep as cel.max_expression_bytes allows', () => {
    const deep = `${Array(4000).fill('1').join('+')} < ctx.target.attributes.limit`;
    assert.deepEqual(celTargetInputs(parse(deep).expr), ['target.attributes.limit']);
  });
});

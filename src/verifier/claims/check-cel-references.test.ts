import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from '@bufbuild/cel';
import { checkCelReferences } from './check-cel-references.ts';

const scope = { sources: new Map([['p', ['deceased', 'address']]]), claims: ['alive'] };
const problems = (expression: string) => checkCelReferences(parse(expression).expr, scope);

describe('checkCelReferences', () => {
  it('accepts what the claim binds, tested with has() or read', () => {
    for (const expression of [
      '!source.p.deceased && has(source.p.address) && source.p.address.city == "x"',
      "has(source.p) && has(claims.alive.value) && has(ctx.target) && source['p']['deceased'] == false",
      'has(ctx.target.attributes.income) && ctx.target.identifiers.nid != "" && ctx.target.id == null',
      'ctx.target.type == "person" && ctx.purpose != "" && ctx.today.size() == 10',
      '[1].all(source, source > 0) && google.protobuf.Timestamp == type(timestamp(0))',
    ]) {
      assert.deepEqual(problems(expression), [], expression);
    }
  });

  it('refuses a has() test of a field the binding does not read: it could only ever be false', () => {
    assert.deepEqual(problems('!has(source.p.death_date)'), [
      'reads `source.p.death_date`, but `death_date` is not in source_bindings.p.fields',
    ]);
    assert.deepEqual(problems('has(source.q.x) || has(claims.alive.valeu)'), [
      'reads `source.q`, but the claim has no source binding `q`',
      'reads `claims.alive.valeu`; a dependency has value, satisfied, claim_id, version',
    ]);
  });

  it('refuses a ctx.target member the request target does not have', () => {
    assert.deepEqual(problems('ctx.target.attribute.income > 1 || has(ctx.target.identifier)'), [
      'reads `ctx.target.attribute`; ctx.target has type, id, identifiers, attributes',
      'reads `ctx.target.identifier`; ctx.target has type, id, identifiers, attributes',
    ]);
    assert.deepEqual(problems("ctx.purpose.x == 1 || ctx.today['y'] == 1"), [
      'reads `ctx.purpose.x`; ctx.purpose is a string',
      'reads `ctx.today.y`; ctx.today is a string',
    ]);
  });

  it('refuses a constant regular expression that does not compile: every evaluation would fail', () => {
    assert.deepEqual(problems("source.p.address.matches('(') || matches(source.p.address, 'a\\\\C')"), [
      'matches the pattern `(`, which is not a valid regular expression: error parsing regexp: missing closing ): `(`',
      'matches the pattern `a\\C`, which is not a valid regular expression: error parsing regexp: invalid escape sequence: `\\C`',
    ]);
    // A valid pattern, or one only known when the expression runs, is not checked here.
    assert.deepEqual(
      problems("source.p.address.matches('^[a-z]+$') && source.p.address.matches(ctx.purpose)"),
      [],
    );
  });

  it('checks a list literal as long as cel.max_expression_bytes allows (1 MiB at most)', () => {
    // 300,000 elements in about 600 KB: a walk must not hand them to one call as arguments.
    const long = `[${Array(300_000).fill('1').join(',')}].size() > 0 && source.p.nope`;
    assert.deepEqual(problems(long), [
      'reads `source.p.nope`, but `nope` is not in source_bindings.p.fields',
    ]);
  });

  it('checks an expression nested as deep as cel.max_expression_bytes allows, as the worker evaluates it', () => {
    // 4,000 terms of a left-nested sum in under 8,192 bytes: the walk must not run out of stack at startup.
    const deep = `${Array(4000).fill('1').join('+')} > source.p.nope`;
    assert.deepEqual(problems(deep), [
      'reads `source.p.nope`, but `nope` is not in source_bindings.p.fields',
    ]);
  });
});

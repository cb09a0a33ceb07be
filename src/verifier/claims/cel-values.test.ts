import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, plan } from '@bufbuild/cel';
import { createCelEnv } from './cel-env.ts';
import { CelResultError, fromCelValue, toCelInput } from './cel-values.ts';

const env = createCelEnv();
const result = (expression: string, bindings: Record<string, unknown> = {}) =>
  fromCelValue(plan(env, parse(expression))(toCelInput(bindings) as Record<string, never>));

describe('CEL results as JSON', () => {
  it('refuses a map key `__proto__`, a key taken from a record included: readers of the results drop it', () => {
    const source = { person: { name: '__proto__' } };
    for (const expression of [
      "{'__proto__': {'@id': 'urn:x'}, 'a': 1}",
      "[{'b': {'__proto__': 1}}]",
      '{source.person.name: true}',
    ]) {
      assert.throws(() => result(expression, { source }), CelResultError, expression);
    }
  });

  it('keeps every other key as a member of its own, `constructor` included', () => {
    const value = result("{'constructor': {'prototype': 1}, 'proto': 2}") as Record<string, unknown>;
    assert.deepEqual(Object.entries(value), [
      ['constructor', { prototype: 1 }],
      ['proto', 2],
    ]);
  });
});

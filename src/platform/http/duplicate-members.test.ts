import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasDuplicateMember } from './duplicate-members.ts';

describe('hasDuplicateMember', () => {
  it('finds a member named twice in one object, escaped or not, at any depth', () => {
    for (const text of [
      '{"a":1,"a":2}',
      ' { "a" : 1 , "a" : 2 } ',
      '{"a":{"x":1,"x":2}}',
      '{"a":1,"\\u0061":2}',
      '{"a\\"b":1,"a\\"b":2}',
      '{"":1,"":2}',
      '{"a":[{}, "a"], "a":1}',
      '[{"b":1},{"a":[{"c":1,"c":2}]}]',
    ]) {
      JSON.parse(text);
      assert.equal(hasDuplicateMember(text), true, text);
    }
  });

  it('leaves alone names repeated across objects, and names appearing as values or inside strings', () => {
    for (const text of [
      '{}',
      '"a"',
      '{"a":"a","b":"a"}',
      '{"a":{"a":1},"b":{"a":2}}',
      '[{"a":1},{"a":1}]',
      '{"a\\\\":1,"b":"\\\\"}',
      '{"k":"{\\"k\\":1}","j":1}',
      '{"a":{}, "b":{}, "c":[]}',
      '[1,"a","a"]',
    ]) {
      JSON.parse(text);
      assert.equal(hasDuplicateMember(text), false, text);
    }
  });
});

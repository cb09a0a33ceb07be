import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repeatedMember } from './duplicate-members.ts';

describe('repeatedMember', () => {
  it('finds a name repeated in one object, at any depth, spelled with or without escapes', () => {
    assert.equal(repeatedMember('{"a":1,"a":2}'), 'a');
    assert.equal(repeatedMember('{"x":[{"b":{"c":1,"c":2}}]}'), 'c');
    assert.equal(repeatedMember('{"\\u0061":1, "a" :2}'), 'a');
    // A value ending in an escaped backslash closes where it seems to, and the next name counts.
    assert.equal(repeatedMember('{"a":"x\\\\","a":1}'), 'a');
  });

  it('leaves names of different objects, strings in lists and quotes inside values alone', () => {
    assert.equal(repeatedMember('{"a":{"a":{"a":1}},"b":["a","a"]}'), undefined);
    assert.equal(repeatedMember('{"a":"\\",\\"a\\":1","b":2}'), undefined);
    assert.equal(repeatedMember('[{"a":1},{"a":1}]'), undefined);
    assert.equal(repeatedMember(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), undefined);
  });
});

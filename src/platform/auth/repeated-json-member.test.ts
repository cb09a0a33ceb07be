import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repeatedJsonMember } from './repeated-json-member.ts';

describe('repeatedJsonMember', () => {
  it('finds a name repeated in one object, at any depth, spelled with or without escapes', () => {
    assert.equal(repeatedJsonMember('{"a":1,"a":2}'), 'a');
    assert.equal(repeatedJsonMember('{"x":[{"b":{"c":1,"c":2}}]}'), 'c');
    assert.equal(repeatedJsonMember('{"\\u0061":1, "a" :2}'), 'a');
    // A value ending in an escaped backslash closes where it seems to, and the next name counts.
    assert.equal(repeatedJsonMember('{"a":"x\\\\","a":1}'), 'a');
  });

  it('leaves names of different objects, strings in lists and quotes inside values alone', () => {
    assert.equal(repeatedJsonMember('{"a":{"a":{"a":1}},"b":["a","a"]}'), undefined);
    assert.equal(repeatedJsonMember('{"a":"\\",\\"a\\":1","b":2}'), undefined);
    assert.equal(repeatedJsonMember('[{"a":1},{"a":1}]'), undefined);
    assert.equal(repeatedJsonMember(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowFault } from './record-fault.ts';

describe('rowFault', () => {
  it('refuses a `__proto__` key at any depth: JavaScript readers of the results (JSON-LD expansion among them) drop it', () => {
    for (const text of [
      '{"national_id":"FAKE-1","__proto__":{"deceased":true}}',
      '{"national_id":"FAKE-1","payload":{"a":[{"__proto__":{"@id":"urn:x"}}]}}',
    ]) {
      assert.equal(rowFault(JSON.parse(text)), 'holds a `__proto__` key', text);
    }
  });

  it('reads keys that only look alike, and `constructor` (kept by those readers)', () => {
    for (const text of [
      '{"national_id":"FAKE-1","payload":{"proto":1,"__proto":2,"constructor":{"prototype":{}}}}',
      '{"national_id":"FAKE-1","payload":["__proto__"]}',
    ]) {
      assert.equal(rowFault(JSON.parse(text)), undefined, text);
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ResponseBody } from './response-body.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MIB = 1024 * 1024;

describe('response body', () => {
  it('keeps every byte in order, however the body is cut, and a body in one piece as it came', () => {
    const whole = Buffer.from('{"data":[{"national_id":"FAKE-1","name":"José"}]}');
    const one = new ResponseBody(MIB);
    assert.equal(one.push(whole), true);
    assert.equal(one.bytes(), whole);
    assert.deepEqual(new ResponseBody(MIB).bytes(), Buffer.alloc(0));
    for (const cuts of [[1], [3, 7, 20], [whole.length - 1]]) {
      const body = new ResponseBody(MIB);
      let at = 0;
      for (const cut of [...cuts, whole.length]) {
        assert.equal(body.push(whole.subarray(at, cut)), true);
        at = cut;
      }
      assert.deepEqual(body.bytes(), whole, String(cuts));
    }
    const large = Buffer.alloc(3 * 65536 + 5, 'x');
    const pieces = new ResponseBody(MIB);
    for (let at = 0; at < large.length; at += 1000) pieces.push(large.subarray(at, at + 1000));
    assert.deepEqual(pieces.bytes(), large);
  });

  it('refuses the piece that takes it past its limit, and any after it', () => {
    const body = new ResponseBody(10);
    assert.equal(body.push(Buffer.alloc(6)), true);
    assert.equal(body.push(Buffer.alloc(4)), true);
    assert.equal(body.push(Buffer.alloc(1)), false);
    const over = new ResponseBody(10);
    assert.equal(over.push(Buffer.alloc(4)), true);
    assert.equal(over.push(Buffer.alloc(7)), false);
    assert.equal(over.push(Buffer.alloc(1)), false);
  });

  it('costs about its size in memory when the source sends it one byte at a time', () => {
    // A chunked answer of 1-byte chunks reaches the reader as a million pieces: kept apart, each holds a buffer object
    // of its own, about 100 MB for 1 MiB (and eight reads in flight at once per connection).
    gc();
    const before = process.memoryUsage();
    const body = new ResponseBody(MIB);
    for (let index = 0; index < MIB; index++) body.push(Buffer.from('x'));
    gc();
    const after = process.memoryUsage();
    const grown = after.heapUsed + after.external - (before.heapUsed + before.external);
    assert.equal(body.bytes().length, MIB);
    assert.ok(grown < 16 * MIB, `grew by ${Math.round(grown / MIB)} MiB`);
  });
});

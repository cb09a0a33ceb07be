// The UTF-8 check in front of the CSV parser: same verdict as the platform's, wherever the input is cut.
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, it } from 'node:test';
import { firstInvalidByte, utf8Guard } from './utf8-guard.ts';

/** Pushes `bytes` through the guard in chunks of `size`: the bytes out, or the offset it failed at. */
async function guard(bytes: Uint8Array, size: number): Promise<{ out?: Buffer; offset?: number }> {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(Buffer.from(bytes.subarray(at, at + size)));
  const out: Buffer[] = [];
  let offset: number | undefined;
  const check = utf8Guard(async (at) => {
    offset = at;
    return new Error('not UTF-8');
  });
  try {
    await pipeline(Readable.from(chunks), check, async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) out.push(chunk);
    });
  } catch {
    return { offset };
  }
  return { out: Buffer.concat(out) };
}

/** Deterministic bytes leaning towards multi-byte sequences, valid and not. */
function sample(seed: number, length: number): Uint8Array {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state;
  };
  const parts: number[] = [];
  while (parts.length < length) {
    const pick = next() % 10;
    if (pick < 4) parts.push(...Buffer.from(['a', 'é', '€', '𝄞', '\n'][next() % 5] as string));
    else parts.push(next() % 256);
  }
  return Uint8Array.from(parts.slice(0, length));
}

describe('utf8Guard', () => {
  it('passes UTF-8 through unchanged however it is cut, and stops at the first byte that is not', async () => {
    for (let seed = 1; seed <= 300; seed++) {
      const valid = Buffer.from(`id,name\n${seed},Zoë € 𝄞 ${'x'.repeat(seed % 7)}\n`);
      const bytes = seed % 3 === 0 ? valid : Buffer.concat([valid, sample(seed, 12)]);
      const expected = isUtf8(bytes) ? bytes.length : firstInvalidByte(bytes);
      for (const size of [1, 2, 3, 5, 64]) {
        const result = await guard(bytes, size);
        if (expected === bytes.length)
          assert.deepEqual(result.out, Buffer.from(bytes), `seed ${seed}, size ${size}`);
        else assert.equal(result.offset, expected, `seed ${seed}, size ${size}`);
      }
    }
  });
});

describe('firstInvalidByte', () => {
  it('agrees with the platform check: the bytes before it are UTF-8, and no sequence starts well at it', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const bytes = sample(seed, 24);
      const at = firstInvalidByte(bytes);
      assert.equal(at === bytes.length, isUtf8(bytes), `seed ${seed}`);
      assert.ok(isUtf8(bytes.subarray(0, at)), `seed ${seed}`);
      if (at < bytes.length) {
        for (let end = at + 1; end <= Math.min(at + 4, bytes.length); end++) {
          assert.ok(!isUtf8(bytes.subarray(at, end)), `seed ${seed}: a sequence starts at ${at}`);
        }
      }
    }
  });

  it('refuses overlong forms, surrogates, code points past U+10FFFF and cut sequences', () => {
    for (const bytes of [
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf5],
      [0xe2, 0x82],
    ]) {
      assert.equal(firstInvalidByte(Uint8Array.from([0x61, ...bytes])), 1, JSON.stringify(bytes));
    }
  });
});

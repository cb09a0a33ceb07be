import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeUlid, systemRandom } from './random.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The ULID of the specification, computed on one 128-bit integer. */
function referenceUlid(ms: number, entropy: Uint8Array): string {
  let value = BigInt(ms);
  for (const byte of entropy) value = (value << 8n) | BigInt(byte);
  let text = '';
  for (let i = 0; i < 26; i++) {
    text = CROCKFORD[Number(value & 31n)] + text;
    value >>= 5n;
  }
  return text;
}

describe('ULIDs', () => {
  it('encode time and entropy as the specification does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        (ms, entropy) => {
          assert.equal(encodeUlid(ms, entropy), referenceUlid(ms, entropy));
          // The same millisecond again (the cached time part) gives the same answer.
          assert.equal(encodeUlid(ms, entropy), referenceUlid(ms, entropy));
        },
      ),
    );
  });

  it('read the entropy at the offset given', () => {
    const bytes = Uint8Array.from({ length: 30 }, (_, i) => i * 7);
    assert.equal(encodeUlid(1, bytes, 20), referenceUlid(1, bytes.subarray(20, 30)));
  });

  it('are distinct and sort by time when minted by the system source', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => systemRandom.ulid(1_800_000_000_000 + (i >> 4)));
    assert.equal(new Set(ids).size, ids.length);
    const times = ids.map((id) => id.slice(0, 10));
    for (let i = 1; i < times.length; i++) assert.ok((times[i - 1] as string) <= (times[i] as string));
    for (const id of ids) assert.match(id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});

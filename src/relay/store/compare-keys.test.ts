import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anyHighUnits, compareKeys, hasHighUnits } from './compare-keys.ts';

// Characters from the ranges where UTF-16 order and code-point order part ways, and some that do not.
const ALPHABET = [
  'a',
  'b',
  'é',
  '\u0800',
  '\ud7ff',
  '\ue000',
  '\uff01',
  '\ufffd',
  '\u{10000}',
  '\u{1f600}',
  '\u{10ffff}',
];

function randomString(random: () => number): string {
  let text = '';
  const length = Math.floor(random() * 5);
  for (let i = 0; i < length; i++) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return text;
}

/** A small deterministic generator, so a failure names a reproducible case. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('compareKeys', () => {
  it('orders strings as their UTF-8 bytes (code points), including where UTF-16 order differs', () => {
    const random = seeded(7);
    let differing = 0;
    for (let n = 0; n < 20_000; n++) {
      const a = randomString(random);
      const b = randomString(random);
      const expected = Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
      assert.equal(Math.sign(compareKeys(a, b)), expected, JSON.stringify([a, b]));
      const native = a < b ? -1 : a > b ? 1 : 0;
      if (native !== expected) {
        differing++;
        // Where the orders part, both strings hold high units: the native fast paths stay exact.
        assert.ok(hasHighUnits(a) && hasHighUnits(b), JSON.stringify([a, b]));
      }
    }
    assert.ok(differing > 100, `only ${differing} generated pairs where the two orders differ`);
  });

  it('orders numbers and booleans as JavaScript does', () => {
    assert.ok(compareKeys(2, 10) < 0);
    assert.ok(compareKeys(-1.5, -2) > 0);
    assert.equal(compareKeys(3, 3), 0);
    assert.ok(compareKeys(false, true) < 0);
  });

  it('tells which strings need the code-point comparison', () => {
    assert.equal(hasHighUnits('plain ascii é \ud7ff'), false);
    assert.equal(hasHighUnits('\uff01'), true);
    assert.equal(hasHighUnits('x\u{1f600}'), true);
    assert.equal(hasHighUnits(42), false);
    assert.equal(anyHighUnits(['a', 3, null, 'b']), false);
    assert.equal(anyHighUnits(['a', '\ue000']), true);
  });
});

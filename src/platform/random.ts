// Injected randomness: ULIDs for request and record ids, random bytes for keys and salts.
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
// Two base32 characters for every 10-bit value: a ULID's 80 random bits are eight lookups.
const PAIRS = Array.from({ length: 1024 }, (_, i) => `${CROCKFORD[i >> 5]}${CROCKFORD[i & 31]}`);

export interface Random {
  ulid(nowMs: number): string;
  bytes(length: number): Buffer;
}

/**
 * A ULID: 48-bit millisecond time as 10 characters, then 80 bits of `entropy` (from `offset`) as 16, in
 * Crockford base32, most significant bits first.
 */
export function encodeUlid(nowMs: number, entropy: Uint8Array, offset = 0): string {
  return timePart(nowMs) + randomPart(entropy, offset);
}

// Ids minted in the same millisecond share their time part; it is computed once per millisecond.
let lastMs = Number.NaN;
let lastTime = '';
function timePart(nowMs: number): string {
  if (nowMs !== lastMs) {
    let text = '';
    let t = nowMs;
    for (let i = 0; i < 10; i++) {
      text = CROCKFORD[t % 32] + text;
      t = Math.floor(t / 32);
    }
    lastMs = nowMs;
    lastTime = text;
  }
  return lastTime;
}

function randomPart(e: Uint8Array, o: number): string {
  return (
    half(e[o] as number, e[o + 1] as number, e[o + 2] as number, e[o + 3] as number, e[o + 4] as number) +
    half(e[o + 5] as number, e[o + 6] as number, e[o + 7] as number, e[o + 8] as number, e[o + 9] as number)
  );
}

/** 40 bits (five bytes) as eight characters. */
function half(b0: number, b1: number, b2: number, b3: number, b4: number): string {
  return (
    (PAIRS[(b0 << 2) | (b1 >> 6)] as string) +
    (PAIRS[((b1 & 63) << 4) | (b2 >> 4)] as string) +
    (PAIRS[((b2 & 15) << 6) | (b3 >> 2)] as string) +
    (PAIRS[((b3 & 3) << 8) | b4] as string)
  );
}

// A pool of random bytes keeps ULID minting off the crypto call path for every request.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

export const systemRandom: Random = {
  ulid(nowMs) {
    if (offset + 10 > POOL_SIZE) {
      pool = randomBytes(POOL_SIZE);
      offset = 0;
    }
    const id = encodeUlid(nowMs, pool, offset);
    offset += 10;
    return id;
  },
  bytes: (length) => randomBytes(length),
};

// Injected randomness: ULIDs for request and record ids, random bytes for keys and salts.
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export interface Random {
  ulid(nowMs: number): string;
  bytes(length: number): Buffer;
}

// A pool of random bytes keeps ULID minting off the crypto call path for every request.
let pool = Buffer.alloc(0);
let offset = 0;
function take(n: number): Buffer {
  if (offset + n > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const slice = pool.subarray(offset, offset + n);
  offset += n;
  return slice;
}

export function encodeUlid(nowMs: number, entropy: Uint8Array): string {
  let time = '';
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rand = '';
  // 80 bits of entropy as 16 base32 characters (5 bits each).
  let acc = 0;
  let bits = 0;
  for (const byte of entropy.subarray(0, 10)) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      rand += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return time + rand;
}

export const systemRandom: Random = {
  ulid: (nowMs) => encodeUlid(nowMs, take(10)),
  bytes: (length) => randomBytes(length),
};

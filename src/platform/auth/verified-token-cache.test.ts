import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOKEN_CACHE_MAX, TOKEN_CACHE_MAX_CHARS, VerifiedTokenCache } from './verified-token-cache.ts';

describe('VerifiedTokenCache', () => {
  it('drops the oldest tokens once the kept ones would hold more characters than the budget', () => {
    const cache = new VerifiedTokenCache<number>();
    const size = 60_000;
    const token = (n: number) => `${String(n).padStart(8, '0')}${'x'.repeat(size - 8)}`;
    const count = Math.ceil(TOKEN_CACHE_MAX_CHARS / size) + 50;
    for (let n = 0; n < count; n++) cache.set(token(n), n);
    assert.ok(cache.heldChars <= TOKEN_CACHE_MAX_CHARS, `${cache.heldChars} characters kept`);
    assert.equal(cache.size, Math.floor(TOKEN_CACHE_MAX_CHARS / size));
    assert.equal(cache.get(token(0)), undefined, 'the oldest went first');
    assert.equal(cache.get(token(count - 1)), count - 1, 'the newest is kept');
  });

  it('drops the oldest past the count limit, and counts a token kept again once', () => {
    const cache = new VerifiedTokenCache<number>();
    for (let n = 0; n <= TOKEN_CACHE_MAX; n++) cache.set(`t${n}`, n);
    assert.equal(cache.size, TOKEN_CACHE_MAX);
    assert.equal(cache.get('t0'), undefined);
    assert.equal(cache.get('t1'), 1);
    const before = cache.heldChars;
    cache.set('t1', 2);
    assert.equal(cache.heldChars, before);
    assert.equal(cache.get('t1'), 2);
    cache.delete('t1');
    assert.equal(cache.heldChars, before - 2);
    assert.equal(cache.get('t1'), undefined);
  });
});

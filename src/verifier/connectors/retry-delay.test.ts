import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelay } from './retry-delay.ts';

const POLICY = { max_attempts: 4, base_delay: 100, max_delay: 300, max_retry_after: 5000 };

describe('retry delay', () => {
  it('parses Retry-After as seconds or an HTTP date, ignoring garbage', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('2', now), 2000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now), 3000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });

  it('reads an absurd Retry-After as a day at most, so that a whole number of seconds is passed on', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('9'.repeat(300), now), MAX_RETRY_AFTER_MS);
    assert.equal(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', now), MAX_RETRY_AFTER_MS);
    assert.equal(parseRetryAfter('86401', now), MAX_RETRY_AFTER_MS);
    assert.equal(MAX_RETRY_AFTER_MS, 86_400_000);
  });

  it('backs off exponentially with full jitter, capped at max_delay', () => {
    assert.equal(retryDelay(POLICY, 1, undefined, 0.5), 50);
    assert.equal(retryDelay(POLICY, 2, undefined, 0.5), 100);
    assert.equal(retryDelay(POLICY, 3, undefined, 0.999), 299);
    assert.equal(retryDelay(POLICY, 1, undefined, 0), 0);
  });

  it('honours Retry-After, gives up when it is too long or attempts are used up', () => {
    assert.equal(retryDelay(POLICY, 1, 1000, 0.5), 1000);
    assert.equal(retryDelay(POLICY, 1, 6000, 0.5), undefined);
    assert.equal(retryDelay(POLICY, 4, undefined, 0.5), undefined);
    assert.equal(retryDelay({ ...POLICY, max_attempts: 1 }, 1, 0, 0.5), undefined);
  });
});

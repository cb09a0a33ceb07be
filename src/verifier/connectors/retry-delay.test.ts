import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelay } from './retry-delay.ts';

const POLICY = { max_attempts: 4, base_delay: 100, max_delay: 300, max_retry_after: 5000 };

describe('retry delay', () => {
  describe('reads Retry-After as delay-seconds or a strict HTTP-date, anything else as absent', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const cases: [string | undefined, number | undefined][] = [
      ['2', 2000],
      ['0', 0],
      [' 120 ', 120_000],
      ['Thu, 01 Jan 2026 00:00:03 GMT', 3000],
      ['Wed, 31 Dec 2025 00:00:00 GMT', 0],
      ['Thursday, 01-Jan-26 00:00:04 GMT', 4000],
      ['Wednesday, 31-Dec-25 00:00:00 GMT', 0],
      ['Thu Jan  1 00:00:05 2026', 5000],
      ['Thu Jan 01 00:00:05 2026', 5000],
      // Garbage V8's Date.parse reads as some date (2001-01-01, 2001-02-01...): a 0 ms pause, `Retry-After: 0`.
      ['-1', undefined],
      ['1.5', undefined],
      ['+3', undefined],
      ['1, 2', undefined],
      ['2 3', undefined],
      ['1e3', undefined],
      ['0x10', undefined],
      ['2026-01-01T00:00:03Z', undefined],
      ['Thu, 1 Jan 2026 00:00:03 GMT', undefined],
      ['Thu, 01 Jan 2026 00:00:03 UTC', undefined],
      ['thu, 01 jan 2026 00:00:03 gmt', undefined],
      ['Thu, 01 Jan 2026 00:00:03', undefined],
      ['Sat, 31 Feb 2026 00:00:00 GMT', undefined],
      ['Thu, 01 Jan 2026 24:00:00 GMT', undefined],
      ['Thu, 01 Jan 2026 00:00:03 GMT, Fri, 02 Jan 2026 00:00:00 GMT', undefined],
      ['soon', undefined],
      ['abc', undefined],
      ['', undefined],
      [undefined, undefined],
    ];
    for (const [header, expected] of cases) {
      it(`${JSON.stringify(header)} → ${expected === undefined ? 'absent' : `${expected} ms`}`, () => {
        assert.equal(parseRetryAfter(header, now), expected);
      });
    }
  });

  it('reads an RFC 850 two-digit year as at most 50 years ahead', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('Sunday, 01-Jan-76 00:00:00 GMT', now), MAX_RETRY_AFTER_MS);
    assert.equal(parseRetryAfter('Friday, 01-Jan-77 00:00:00 GMT', now), 0);
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

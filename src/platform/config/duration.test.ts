import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { durationMs, MAX_TIMER_MS } from './duration.ts';

describe('durationMs', () => {
  it('never accepts more than a timer can wait, even without a maximum of its own', () => {
    const schema = durationMs({ min: 1 });
    assert.equal(schema.parse('24d'), 24 * 86_400_000);
    assert.equal(schema.parse(`${MAX_TIMER_MS}ms`), MAX_TIMER_MS);
    for (const text of [`${MAX_TIMER_MS + 1}ms`, '25d', '100000000000000000000d']) {
      const result = schema.safeParse(text);
      assert.equal(result.success, false, text);
      assert.match(result.error?.issues[0]?.message ?? '', /is out of range \(1ms to 2147483647ms\)/);
    }
  });

  it('keeps a lower maximum given by the setting', () => {
    assert.equal(durationMs({ max: 60_000 }).safeParse('2m').success, false);
  });
});

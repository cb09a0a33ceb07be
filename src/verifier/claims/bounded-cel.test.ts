import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { fixedDeadline } from '../../platform/deadline.ts';
import { isBoundedCel, MAX_BOUNDED_NODES } from './bounded-cel.ts';
import { rejection } from './cel-test-support.ts';
import { createCelEvaluator } from './create-cel-evaluator.ts';

const LIMITS = {
  eval_timeout: 2000,
  worker_count: 1,
  worker_memory_mb: 64,
  max_binding_json_bytes: 4096,
  max_result_json_bytes: 256,
};

/** Whether the promise settles within the current turn of the event loop (no worker could answer that soon). */
async function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
}

describe('isBoundedCel', () => {
  it('takes comparisons, arithmetic, field tests, conversions and string tests of few nodes', () => {
    for (const expression of [
      'source.record.household_size >= 5',
      "!source.person.deceased && source.person.status == 'active'",
      'has(source.r.x) ? int(source.r.x) + 1 : size(ctx.purpose)',
      "timestamp(ctx.today + 'T00:00:00Z') - duration('24h') < timestamp(source.r.at)",
      "source.r.code in ['a', 'b'] && source.r.name.startsWith('x') && claims.alive.value",
      "{'n': source.r.n * 2, 'l': [ctx.today]}",
    ]) {
      assert.equal(isBoundedCel(expression), true, expression);
    }
  });

  it('leaves comprehensions, regular expressions, unknown functions, large and unparsable expressions to workers', () => {
    const long = Array.from({ length: MAX_BOUNDED_NODES }, (_, i) => `x == ${i}`).join(' || ');
    for (const expression of [
      'source.l.all(x, x > 0)',
      'source.l.exists(x, x == 1)',
      'source.l.map(x, x * 2)[0] == 2',
      '[1, 2].filter(x, x > 1).size() == 1',
      "source.r.name.matches('^a+$')",
      "matches(source.r.name, 'a')",
      'unknownFunction(1)',
      long,
      'source.',
    ]) {
      assert.equal(isBoundedCel(expression), false, expression.slice(0, 60));
    }
  });
});

describe('CEL evaluator: bounded expressions on the calling thread', () => {
  const cel = createCelEvaluator(LIMITS);
  after(() => cel.close());

  it('answers a bounded expression at once, with no worker hand-off', async () => {
    assert.equal(cel.runsInline('source.hh.household_size >= 5'), true);
    const answer = cel.evaluate('source.hh.household_size >= 5', { source: { hh: { household_size: 6 } } });
    assert.equal(await settlesAtOnce(answer), true);
    assert.equal(await answer, true);
    // A comprehension goes to a worker, which cannot answer within the same turn.
    assert.equal(cel.runsInline('[1].all(x, x > 0)'), false);
    const pooled = cel.evaluate('[1].all(x, x > 0)', {});
    assert.equal(await settlesAtOnce(pooled), false);
    assert.equal(await pooled, true);
  });

  it('fails as a worker would: CEL errors, int claims given a double, results over the limit', async () => {
    assert.equal((await rejection(cel.evaluate('source.missing.x', { source: {} }))).reason, 'error');
    assert.equal((await rejection(cel.evaluate("1 + 'a'", {}))).reason, 'error');
    const double = await rejection(cel.evaluate('6.0 / 2.0', {}, undefined, true));
    assert.match(double.message, /double, not the int/);
    const big = await rejection(cel.evaluate('source.s + source.s', { source: { s: 'x'.repeat(200) } }));
    assert.equal(big.reason, 'too_large');
    assert.equal(
      (await rejection(cel.evaluate('true', { source: { s: 'x'.repeat(5000) } }))).reason,
      'too_large',
    );
  });

  it('does not run an expression whose request was already answered', async () => {
    const late = await rejection(cel.evaluate('1 + 1', {}, fixedDeadline(performance.now() - 1)));
    assert.equal(late.reason, 'timeout');
    assert.match(late.message, /answered before the expression ran/);
  });

  it('hands inputs nested deeper than the calling thread can convert to a worker, which answers them', async () => {
    const roomy = createCelEvaluator({ ...LIMITS, max_binding_json_bytes: 65_536 });
    try {
      let lists: unknown = 1;
      for (let level = 0; level < 3500; level++) lists = [lists];
      assert.equal(await roomy.evaluate('size(source.s)', { source: { s: lists } }), 1);
    } finally {
      await roomy.close();
    }
  });

  it('converts a long numeric-looking text to double in time linear in its length', async () => {
    // The decimal pattern once backtracked quadratically: 60,000 digits took seconds, past the time limit.
    const text = `${'1'.repeat(60_000)}x`;
    const roomy = createCelEvaluator({ ...LIMITS, eval_timeout: 500, max_binding_json_bytes: 65_536 });
    try {
      const error = await rejection(
        roomy.evaluate(`[double(source.s)].map(v, v)[0]`, { source: { s: text } }),
      );
      assert.equal(error.reason, 'error');
      assert.match(error.message, /cannot convert/);
    } finally {
      await roomy.close();
    }
  });
});

describe('CEL evaluator: conversions of long digit strings in time linear in their length', () => {
  // Parsing all the digits took time growing with the square of their number: bounded expressions joining a 64 KiB
  // input a dozen times held the request thread for a tenth of a second, and the megabytes here took seconds.
  const cel = createCelEvaluator({
    ...LIMITS,
    eval_timeout: 500,
    worker_memory_mb: 256,
    max_binding_json_bytes: 1024 * 1024,
  });
  after(() => cel.close());
  const digits = { source: { r: { d: '7'.repeat(1_000_000) } } };
  const zeros = { source: { r: { d: '0'.repeat(1_000_000) } } };
  // Twelve megabytes of the digits.
  const many = Array.from({ length: 12 }, () => 'source.r.d').join(' + ');

  it('answers int(), uint() and duration() of megabytes of digits as out of range, not at the time limit', async () => {
    for (const expression of [
      `int(${many}) > 0`,
      `uint(${many}) > 0u`,
      `duration(${many} + 'ns') > duration('1s')`,
    ]) {
      const error = await rejection(cel.evaluate(`[${expression}].map(v, v)[0]`, digits));
      assert.equal(error.reason, 'error', expression);
      assert.match(error.message, /out of range/, expression);
    }
  });

  it('reads the value behind leading zeros and a long fraction as before', async () => {
    for (const [expression, bindings] of [
      [`int(${many} + '42') == 42`, zeros],
      [`int('-' + ${many} + '9223372036854775808') == -9223372036854775807 - 1`, zeros],
      [`uint(${many} + '18446744073709551615') == 18446744073709551615u`, zeros],
      [`duration(${many} + '90m') == duration('1h30m')`, zeros],
      [`duration('1.' + ${many} + 's') == duration('1777777777ns')`, digits],
      ["duration('0.000000000000000000000000000001h') == duration('0')", {}],
      ["duration('0.0000000000000000000000000000000000009h') == duration('0')", {}],
    ] as const) {
      const answer = cel
        .evaluate(`[${expression}].map(v, v)[0]`, bindings)
        .catch((error: Error) => error.message);
      assert.equal(await answer, true, expression.slice(0, 80));
    }
  });
});

describe('CEL evaluator: large inputs go to a worker, however bounded the expression', () => {
  // An operator may allow larger inputs than the default: an expression over them, should one of its functions
  // prove slower than linear, must then run where the time limit can stop it, not on the request thread.
  const cel = createCelEvaluator({ ...LIMITS, max_binding_json_bytes: 4 * 1024 * 1024 });
  after(() => cel.close());

  it('runs a bounded expression inline on small inputs, in a worker on inputs past 64 KiB', async () => {
    const small = cel.evaluate('size(source.r.text) > 0', { source: { r: { text: 'x'.repeat(1_000) } } });
    assert.equal(await settlesAtOnce(small), true);
    assert.equal(await small, true);
    const large = cel.evaluate('size(source.r.text) > 0', { source: { r: { text: 'x'.repeat(70_000) } } });
    assert.equal(await settlesAtOnce(large), false);
    assert.equal(await large, true);
  });
});

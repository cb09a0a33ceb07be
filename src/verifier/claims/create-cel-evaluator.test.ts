import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { fixedDeadline } from '../../platform/deadline.ts';
import { rejection, TWO_WORKER_CEL } from './cel-test-support.ts';
import { type CelEvaluationError, createCelEvaluator, retire } from './create-cel-evaluator.ts';

const LIMITS = TWO_WORKER_CEL;

/**
 * The same expression through a comprehension, which sends it to a worker: bounded expressions run on the calling
 * thread (bounded-cel.ts), and the pool's own behaviour is what these tests are about.
 */
const pooled = (expression: string) => `[${expression}].map(v, v)[0]`;

describe('CEL evaluator (worker pool)', () => {
  const cel = createCelEvaluator(LIMITS);
  after(() => cel.close());

  it('evaluates with claims, source and ctx bindings; whole numbers compare as ints', async () => {
    const bindings = {
      claims: { alive: { value: true, satisfied: true } },
      source: { hh: { household_size: 5, enrollment_status: 'enrolled', score: 3.5 } },
      ctx: { purpose: 'p', today: '2026-01-01' },
    };
    assert.equal(
      await cel.evaluate(
        "claims.alive.value && source.hh.household_size >= 4 && source.hh.enrollment_status == 'enrolled'",
        bindings,
      ),
      true,
    );
    assert.equal(
      await cel.evaluate('source.hh.score < 4.0 && source.hh.household_size + 1 == 6', bindings),
      true,
    );
    assert.deepEqual(await cel.evaluate("{'n': source.hh.household_size * 2, 'l': [ctx.today]}", bindings), {
      n: 10,
      l: ['2026-01-01'],
    });
  });

  it('reports CEL errors (unknown field, no overload) as rejections', async () => {
    const error = await rejection(cel.evaluate('source.missing.x', { source: {} }));
    assert.equal(error.reason, 'error');
    assert.equal((await rejection(cel.evaluate("1 + 'a'", {}))).reason, 'error');
  });

  it('answers a timestamp result as RFC 3339 text', async () => {
    assert.equal(
      await cel.evaluate("timestamp(ctx.today + 'T00:00:00Z')", { ctx: { today: '2026-01-01' } }),
      '2026-01-01T00:00:00.000Z',
    );
    assert.equal(
      await cel.evaluate("timestamp('2026-01-01T00:00:00Z') + duration('36h')", {}),
      '2026-01-02T12:00:00.000Z',
    );
  });

  it('reads timestamp(int) as Unix seconds, within the CEL timestamp range', async () => {
    assert.equal(await cel.evaluate('timestamp(1700000000)', {}), '2023-11-14T22:13:20.000Z');
    assert.equal(await cel.evaluate("timestamp(0) == timestamp('1970-01-01T00:00:00Z')", {}), true);
    assert.equal(await cel.evaluate('int(timestamp(-86400))', {}), -86400);
    assert.equal(await cel.evaluate('timestamp(253402300799)', {}), '9999-12-31T23:59:59.000Z');
    assert.match((await rejection(cel.evaluate('timestamp(253402300800)', {}))).message, /out of range/);
    assert.match((await rejection(cel.evaluate('timestamp(-62135596801)', {}))).message, /out of range/);
  });

  it("keeps a record's key named __proto__ as a plain field", async () => {
    const record = JSON.parse('{"obj": {"__proto__": {"p": 1}, "q": 2}}');
    assert.equal(
      await cel.evaluate("'__proto__' in source.r.obj && size(source.r.obj) == 2", { source: { r: record } }),
      true,
    );
  });

  it('reads map keys named constructor or $typeName as plain fields', async () => {
    const bindings = {
      ctx: { target: { attributes: { constructor: 'x', n: 1 } } },
      source: { r: { $typeName: 'google.protobuf.Timestamp', seconds: 7 } },
    };
    assert.equal(
      await cel.evaluate(
        "ctx.target.attributes.constructor == 'x' && ctx.target.attributes.n == 1",
        bindings,
      ),
      true,
    );
    assert.equal(await cel.evaluate('size(source.r) == 2 && source.r.seconds == 7', bindings), true);
  });

  it('survives a stopped worker reporting an error on its way out (out of memory while being stopped)', async () => {
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    const stopped = retire(worker);
    // Without a listener this would be an unhandled 'error' event, which ends the process.
    assert.doesNotThrow(() => worker.emit('error', new Error('ERR_WORKER_OUT_OF_MEMORY')));
    await stopped;
  });

  it('refuses inputs and results over their size limits', async () => {
    const big = { source: { s: 'x'.repeat(5000) } };
    assert.equal((await rejection(cel.evaluate('true', big))).reason, 'too_large');
    // The request's own target is bounded by the request limits, not by max_binding_json_bytes.
    const largeTarget = { ctx: { target: { attributes: { note: 'x'.repeat(5000) } } } };
    assert.equal(await cel.evaluate('ctx.target.attributes.note.size()', largeTarget), 5000);
    // A record nested beyond what can be serialised is refused as too large, not thrown.
    let deep: unknown = 1;
    for (let level = 0; level < 20_000; level++) deep = [deep];
    assert.equal((await rejection(cel.evaluate('true', { source: { s: deep } }))).reason, 'too_large');
    assert.equal(
      (await rejection(cel.evaluate("'y'.size() > 0 ? 'y' + 'y'.repeat(1) : ''", {}))).reason,
      'error',
    );
    const longResult = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;
    assert.equal((await rejection(cel.evaluate(longResult, {}))).reason, 'too_large');
  });

  it('passes deeply nested records to the worker and back, whatever the depth the size limits let through', async () => {
    const roomy = createCelEvaluator({
      ...LIMITS,
      max_binding_json_bytes: 65_536,
      max_result_json_bytes: 65_536,
    });
    try {
      // 7 KB of JSON: too deep for a structured clone of the record itself.
      let lists: unknown = 1;
      for (let level = 0; level < 3500; level++) lists = [lists];
      assert.equal(await roomy.evaluate('size(source.s)', { source: { s: lists } }), 1);
      let maps: unknown = 1;
      for (let level = 0; level < 2000; level++) maps = { a: maps };
      // Compared as text: a deep comparison of 2,000 levels overflows the stack itself.
      assert.equal(
        JSON.stringify(await roomy.evaluate('source.s', { source: { s: maps } })),
        JSON.stringify(maps),
      );
    } finally {
      await roomy.close();
    }
  });

  it('counts the bytes values an expression makes against the worker memory cap', async () => {
    // 27,000 copies of 3 KB, 81 MB in all: memory a worker heap limit does not see (it is outside the heap).
    const bindings = { source: { p: { s: 'x'.repeat(3000), l: Array.from({ length: 30 }, (_, i) => i) } } };
    const expression =
      'source.p.l.map(a, source.p.l.map(b, source.p.l.map(c, bytes(source.p.s)))).size() == 30';
    // Copying up to the cap takes a while on a busy machine: a time limit well above it, so only the cap can stop it.
    const patient = createCelEvaluator({ ...LIMITS, eval_timeout: 30_000, worker_count: 1 });
    try {
      const error = await rejection(patient.evaluate(expression, bindings));
      assert.equal(error.reason, 'error');
      assert.match(error.message, /bytes/);
      assert.equal(
        await patient.evaluate("bytes(source.p.s).size() + size(b'ab' + bytes('c'))", bindings),
        3003,
      );
    } finally {
      await patient.close();
    }
  });

  it('keeps the worker memory cap for long strings an expression builds: the rule fails, the server stays up', async () => {
    // Each level doubles the caller's 1 KB text: 64 million characters after 16, where the first read of it (a
    // conversion, its size, the result) needs one block of memory four times the cap, more than a worker can be
    // allowed past its cap while it is stopped.
    const doubled = (levels: number, use: string) => {
      let body = use.replaceAll('S', `s${levels}`);
      for (let level = levels; level > 0; level--)
        body = `[s${level - 1} + s${level - 1}].all(s${level}, ${body})`;
      return `[ctx.target.attributes.s].all(s0, ${body})`;
    };
    const bindings = { ctx: { target: { attributes: { s: '1'.repeat(1024) } } } };
    const small = createCelEvaluator({
      ...LIMITS,
      worker_memory_mb: 16,
      eval_timeout: 30_000,
      worker_count: 1,
    });
    try {
      for (const use of ['int(S) > 0', 'timestamp(S) > timestamp(0)', 'size(S) > 0', "bytes(S) == b''"]) {
        const error = await rejection(small.evaluate(doubled(16, use), bindings));
        assert.equal(error.reason, 'error', use);
        assert.match(error.message, /memory/, use);
      }
      // Strings a rule may build well within the cap are answered as before.
      assert.equal(await small.evaluate(doubled(8, 'size(S) == 262144'), bindings), true);
      // Two million characters: counted without an array of them, which would take eight bytes each.
      assert.equal(await small.evaluate(doubled(11, 'size(S) == 2097152'), bindings), true);
      assert.equal(await small.evaluate(pooled("size(ctx.target.attributes.s + '!')"), bindings), 1025);
    } finally {
      await small.close();
    }
  });

  it('stops a runaway expression at the time limit and keeps serving afterwards', async () => {
    const slow = createCelEvaluator({ ...LIMITS, eval_timeout: 150, worker_count: 1 });
    try {
      const list = Array.from({ length: 400 }, (_, i) => i);
      // 64 million steps: only the time limit ends them with a rejection.
      const error = await rejection(
        slow.evaluate('l.all(a, l.all(b, l.all(c, a + b + c >= 0)))', { l: list }),
      );
      assert.equal(error.reason, 'timeout');
      assert.equal(await slow.evaluate(pooled('1 + 1 == 2'), {}), true);
    } finally {
      await slow.close();
    }
  });

  it('times a runaway expression by the monotonic clock: a wall clock stepped back does not extend the limit', async () => {
    const slow = createCelEvaluator({ ...LIMITS, eval_timeout: 150, worker_count: 1 });
    const wallClock = Date.now;
    try {
      // The host's wall clock is stepped back an hour (NTP, a restored VM) while the expression runs.
      Date.now = () => wallClock() - 3_600_000;
      const list = Array.from({ length: 400 }, (_, i) => i);
      const error = await rejection(
        slow.evaluate('l.all(a, l.all(b, l.all(c, a + b + c >= 0)))', { l: list }),
      );
      assert.equal(error.reason, 'timeout');
    } finally {
      Date.now = wallClock;
      await slow.close();
    }
  });

  it('never runs a task whose request was answered while it waited in the queue', async () => {
    const slow = createCelEvaluator({ ...LIMITS, eval_timeout: 300, worker_count: 1 });
    try {
      const list = Array.from({ length: 400 }, (_, i) => i);
      const runaway = rejection(slow.evaluate('l.all(a, l.all(b, l.all(c, a + b + c >= 0)))', { l: list }));
      // Handed to the only worker first; the next ones queue behind it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const late = rejection(slow.evaluate(pooled('1 + 1'), {}, fixedDeadline(performance.now() + 20)));
      const patient = slow.evaluate(pooled('2 + 2'), {}, fixedDeadline(performance.now() + 60_000));
      assert.equal((await runaway).reason, 'timeout');
      const dropped = await late;
      assert.equal(dropped.reason, 'timeout');
      assert.match(dropped.message, /answered before the expression ran/);
      assert.equal(await patient, 4);
    } finally {
      await slow.close();
    }
  });

  it('frees the worker of an expression whose request has been answered, without waiting for the time limit', async () => {
    // A limit far past the deadline: it would stop the expression too, but as a runaway, much later.
    const slow = createCelEvaluator({ ...LIMITS, eval_timeout: 30_000, worker_count: 1 });
    try {
      // Once the worker is ready: a task still queued at its deadline is never run (the test below).
      assert.equal(await slow.evaluate(pooled('1'), {}), 1);
      const list = Array.from({ length: 400 }, (_, i) => i);
      const endless = 'l.all(a, l.all(b, l.all(c, l.all(d, a + b + c + d >= 0))))';
      const error = await rejection(
        slow.evaluate(endless, { l: list }, fixedDeadline(performance.now() + 100)),
      );
      assert.equal(error.reason, 'timeout');
      assert.match(error.message, /answered before the expression finished/);
      // The worker was replaced: the next expression is answered.
      assert.equal(await slow.evaluate(pooled('1 + 1'), {}), 2);
    } finally {
      await slow.close();
    }
  });

  it('skips a task of a hand-off whose request was answered while the tasks before it ran', async () => {
    const slow = createCelEvaluator({ ...LIMITS, eval_timeout: 30_000, worker_count: 1 });
    try {
      // The worker is ready, so both tasks below are handed to it together, before the second one's deadline.
      assert.equal(await slow.evaluate(pooled('1'), {}), 1);
      const list = Array.from({ length: 100 }, (_, i) => i);
      // A million steps (most of a second at least), far longer than the 100 ms before the second task's deadline.
      const long = slow.evaluate('l.all(a, l.all(b, l.all(c, a + b + c >= 0)))', { l: list });
      const endless = 'l.all(a, l.all(b, l.all(c, l.all(d, a + b + c + d >= 0))))';
      const late = rejection(slow.evaluate(endless, { l: list }, fixedDeadline(performance.now() + 100)));
      assert.equal(await long, true);
      const skipped = await late;
      assert.equal(skipped.reason, 'timeout');
      assert.match(skipped.message, /answered before the expression ran/);
      assert.equal(await slow.evaluate(pooled('2 + 2'), {}), 4);
    } finally {
      await slow.close();
    }
  });

  it('runs again one at a time the tasks put back after a runaway, so each is timed alone', async () => {
    const slow = createCelEvaluator({ ...LIMITS, eval_timeout: 150, worker_count: 1 });
    try {
      const list = Array.from({ length: 400 }, (_, i) => i);
      const spin = 'l.all(a, l.all(b, l.all(c, a + b + c >= 0)))';
      // One hand-off: two runaways with quick tasks among them.
      const outcomes = await Promise.allSettled([
        slow.evaluate(spin, { l: list }),
        slow.evaluate(pooled('x + 1'), { x: 1 }),
        slow.evaluate(spin, { l: list }),
        slow.evaluate(pooled('x * 2'), { x: 21 }),
      ]);
      assert.deepEqual(
        outcomes.map((outcome) =>
          outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as CelEvaluationError).reason,
        ),
        ['timeout', 2, 'timeout', 42],
      );
    } finally {
      await slow.close();
    }
  });

  it('times each task of a batch on its own: only the runaway one fails, the others still answer', async () => {
    const slow = createCelEvaluator({ ...LIMITS, eval_timeout: 150, worker_count: 1 });
    try {
      const list = Array.from({ length: 400 }, (_, i) => i);
      // Asked for in one turn, so they reach the worker as one batch, the runaway second.
      const outcomes = await Promise.allSettled([
        slow.evaluate(pooled('x + 1'), { x: 1 }),
        slow.evaluate('l.all(a, l.all(b, l.all(c, a + b + c >= 0)))', { l: list }),
        slow.evaluate(pooled('x * 2'), { x: 21 }),
        slow.evaluate(pooled("s + '!'"), { s: 'ok' }),
      ]);
      assert.deepEqual(outcomes[0], { status: 'fulfilled', value: 2 });
      assert.equal(outcomes[1]?.status, 'rejected');
      assert.equal(((outcomes[1] as PromiseRejectedResult).reason as CelEvaluationError).reason, 'timeout');
      assert.deepEqual(outcomes[2], { status: 'fulfilled', value: 42 });
      assert.deepEqual(outcomes[3], { status: 'fulfilled', value: 'ok!' });
    } finally {
      await slow.close();
    }
  });

  it('shares tasks asked for together among the workers: a quick one never waits behind a slow one while a worker is free', async () => {
    const two = createCelEvaluator({ ...LIMITS, eval_timeout: 10_000, worker_count: 2 });
    try {
      const list = Array.from({ length: 400 }, (_, i) => i);
      let slowSettled = false;
      // Asked for in one turn: the slow task first, the quick one after it.
      const slow = two
        .evaluate('l.all(a, l.all(b, l.all(c, a + b + c >= 0)))', { l: list })
        .catch(() => undefined)
        .finally(() => {
          slowSettled = true;
        });
      assert.equal(await two.evaluate(pooled('x + 1'), { x: 1 }), 2);
      assert.equal(slowSettled, false, 'the quick task was answered while the slow one still ran');
      await two.close();
      await slow;
    } finally {
      await two.close();
    }
  });

  it('answers every task of a burst larger than one hand-off with its own result', async () => {
    const values = Array.from({ length: 100 }, (_, i) => i);
    const results = await Promise.all(values.map((x) => cel.evaluate(pooled('x * x + 1'), { x })));
    assert.deepEqual(
      results,
      values.map((x) => x * x + 1),
    );
  });

  it('rejects after close', async () => {
    const closed = createCelEvaluator(LIMITS);
    await closed.close();
    assert.equal((await rejection(closed.evaluate('true', {}))).reason, 'worker_failed');
  });
});

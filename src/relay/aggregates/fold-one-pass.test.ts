import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type ItemRow, testAggregate, testCatalog, testGeneration } from './aggregate-test-support.ts';
import { executeGeneral } from './execute-aggregate.ts';
import { foldOnePass } from './fold-one-pass.ts';
import { parseAggregateBody } from './parse-aggregate-request.ts';
import { planAggregate } from './plan-aggregate.ts';

const catalog = testCatalog();
const aggregate = testAggregate(catalog, 'open');

/** Each group as "codes -> measure values", independent of group order. */
function byCodes(result: ReturnType<typeof executeGeneral>, dims: number): Map<string, (number | null)[]> {
  const out = new Map<string, (number | null)[]>();
  for (let g = 0; g < result.groupCount; g++) {
    const key = Array.from(result.codes.subarray(g * dims, (g + 1) * dims)).join(',');
    out.set(key, [result.sizes[g] as number, ...result.values.map((values) => values[g] ?? null)]);
  }
  return out;
}

const items = fc.array(
  fc.record({
    cat: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: null }),
    flag: fc.option(fc.boolean(), { nil: null }),
    size: fc.integer({ min: 0, max: 9 }),
    // Decimals that doubles cannot hold exactly, and large magnitudes: both paths must round alike.
    amount: fc.oneof(
      fc.integer({ min: -1000, max: 1000 }).map((cents) => cents / 100),
      fc.double({ min: -1e15, max: 1e15, noNaN: true }),
    ),
    owner_id: fc.option(fc.constantFrom('o1', 'o2'), { nil: null }),
  }),
  { minLength: 1, maxLength: 80 },
);

describe('foldOnePass', () => {
  it('matches the general path exactly wherever it applies (counts, sums, averages of null-free columns, row filters)', async () => {
    await fc.assert(
      fc.asyncProperty(
        items,
        fc.subarray(['cat', 'flag', 'region', 'size'], { maxLength: 2 }),
        fc.shuffledSubarray(['rows', 'total', 'mean', 'owner_sizes'], { minLength: 1 }),
        // A filter through a relationship is checked row by row (no index), so the fold still applies.
        fc.option(fc.constantFrom('north', 'south'), { nil: undefined }),
        async (raw, groupBy, measures, region) => {
          const rows: ItemRow[] = raw.map((item, i) => ({ id: i + 1, ...item }));
          const generation = await testGeneration(catalog, rows, [{ owner_id: 'o1', region: 'north' }]);
          const filters = region === undefined ? {} : { 'owner.region': region };
          const body = { group_by: groupBy, measures, filters };
          const plan = planAggregate(generation, aggregate, parseAggregateBody(aggregate, body));
          const fast = foldOnePass(plan);
          assert.ok(fast, 'the one-pass fold applies to this plan');
          const general = executeGeneral(plan);
          const [a, b] = [byCodes(fast, groupBy.length), byCodes(general, groupBy.length)];
          assert.deepEqual([...a.keys()].sort(), [...b.keys()].sort());
          // Exactly: the same additions in the same (row) order, so every format and path says the same number.
          for (const [key, values] of a) assert.deepEqual(values, b.get(key), key);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('leaves indexed filters, nulls, extremes, spreads and medians to the general path', async () => {
    const rows: ItemRow[] = [
      { id: 1, cat: 'a', flag: true, size: 1, amount: 2, owner_id: 'o1' },
      { id: 2, cat: 'b', flag: false, size: null, amount: 3, owner_id: 'o1' },
    ];
    const generation = await testGeneration(catalog, rows, [{ owner_id: 'o1', region: 'north' }]);
    const plan = (body: Record<string, unknown>) =>
      planAggregate(generation, aggregate, parseAggregateBody(aggregate, body));
    assert.ok(foldOnePass(plan({ measures: ['rows', 'total'] })));
    for (const body of [
      { measures: ['total'], filters: { cat: 'a' } },
      { measures: ['owner_sizes'] },
      { measures: ['low'] },
      { measures: ['spread'] },
      { measures: ['middle'] },
      { measures: ['cats'] },
      { measures: ['rows'], group_by: ['cat', 'flag', 'size'] },
    ]) {
      assert.equal(foldOnePass(plan(body)), undefined, JSON.stringify(body));
    }
  });
});

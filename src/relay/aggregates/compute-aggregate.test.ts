import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CellKey } from '../store/column.ts';
import {
  type ItemRow,
  type OwnerRow,
  TEST_AGGREGATES,
  testAggregate,
  testCatalog,
  testGeneration,
} from './aggregate-test-support.ts';
import { compareCells } from './apply-disclosure.ts';
import { computeAggregate } from './compute-aggregate.ts';
import { parseAggregateBody } from './parse-aggregate-request.ts';

const catalog = testCatalog();
const OWNERS = ['o1', 'o2', 'o3', 'o4', 'o5'];

type Value = CellKey | null;

const ownerRows = fc.tuple(
  // Often null, so unrelated items and items of a region-less owner must land in one null group.
  ...OWNERS.map(() => fc.option(fc.constantFrom('north', 'south', 'east'), { nil: null, freq: 2 })),
);

const itemRows = fc.array(
  fc.record({
    cat: fc.option(fc.constantFrom('a', 'b', 'c', 'd'), { nil: null }),
    flag: fc.option(fc.boolean(), { nil: null }),
    size: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
    // Whole numbers often, so range bounds meet equal values.
    amount: fc.option(
      fc.oneof(
        fc.integer({ min: -10, max: 40 }),
        fc.integer({ min: -5000, max: 30_000 }).map((cents) => cents / 100),
      ),
      { nil: null },
    ),
    // Owner `o9` does not exist: its items have no related owner, so their region is null.
    owner_id: fc.option(fc.constantFrom(...OWNERS, 'o9'), { nil: null }),
  }),
  { minLength: 1, maxLength: 120, size: 'medium' },
);

const queries = fc.record({
  groupBy: fc
    .subarray(['cat', 'flag', 'size', 'region'], { minLength: 0 })
    .chain((dims) => fc.shuffledSubarray(dims, { minLength: dims.length })),
  measures: fc.shuffledSubarray(
    ['rows', 'amounts', 'total', 'mean', 'low', 'high', 'middle', 'spread', 'cats', 'owner_sizes'],
    { minLength: 1 },
  ),
  cats: fc.option(fc.subarray(['a', 'b', 'c', 'x'], { minLength: 1 }), { nil: undefined }),
  amountFrom: fc.option(fc.integer({ min: -10, max: 40 }), { nil: undefined }),
  region: fc.option(fc.constantFrom('north', 'south'), { nil: undefined }),
  maxRows: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 100 })),
  aggregate: fc.constantFrom(...TEST_AGGREGATES),
});
type Query = typeof queries extends fc.Arbitrary<infer T> ? T : never;

/** The straightforward computation the columnar engine must agree with. */
/** Items of category `a` with these amounts and nothing else set. */
function itemsOfAmounts(amounts: readonly number[]): ItemRow[] {
  return amounts.map((amount, i) => ({
    id: i + 1,
    cat: 'a',
    flag: null,
    size: null,
    amount,
    owner_id: null,
  }));
}

function reference(items: readonly ItemRow[], owners: readonly OwnerRow[], query: Query) {
  const regionOf = new Map(owners.map((owner) => [owner.owner_id, owner.region]));
  const value = (item: ItemRow, dimension: string): Value => {
    if (dimension === 'region') return item.owner_id === null ? null : (regionOf.get(item.owner_id) ?? null);
    return item[dimension as 'cat' | 'flag' | 'size'];
  };
  const selected = items.filter(
    (item) =>
      (query.cats === undefined || (item.cat !== null && query.cats.includes(item.cat))) &&
      (query.amountFrom === undefined || (item.amount !== null && item.amount >= query.amountFrom)) &&
      (query.region === undefined || value(item, 'region') === query.region),
  );
  const groups = new Map<string, { keys: Value[]; items: ItemRow[] }>();
  for (const item of selected) {
    const keys = query.groupBy.map((dimension) => value(item, dimension));
    const key = JSON.stringify(keys);
    const group = groups.get(key) ?? { keys, items: [] };
    group.items.push(item);
    groups.set(key, group);
  }
  const sorted = [...groups.values()].sort((a, b) => {
    for (let i = 0; i < a.keys.length; i++) {
      const diff = compareCells(a.keys[i] ?? null, b.keys[i] ?? null);
      if (diff !== 0) return diff;
    }
    return 0;
  });
  const { suppression, min } = query.aggregate;
  // A measure fewer than `min` rows gave a value is suppressed in a group shown (none giving one is just null).
  const thin = (group: { items: ItemRow[] }) =>
    query.measures.map((measure) => {
      const n = contributorsOf(measure, group.items);
      return n > 0 && n < min;
    });
  const suppressed = sorted.filter((group) => group.items.length < min || thin(group).some(Boolean)).length;
  const shown = sorted.filter((group) => suppression === 'mask' || group.items.length >= min);
  return {
    suppressedGroups: suppressed,
    truncated: shown.length > query.maxRows,
    observations: shown.slice(0, query.maxRows).map((group) => {
      const masked = group.items.length < min;
      const thinned = masked ? undefined : thin(group);
      return {
        keys: group.keys,
        masked,
        suppressedMeasures: thinned?.some(Boolean) ? thinned : undefined,
        values: query.measures.map((measure, m) =>
          masked || thinned?.[m] ? null : measureOf(measure, group.items),
        ),
      };
    }),
  };
}

/**
 * The rows that give a measure its value: every row for the row count, the rows with a value in the column
 * otherwise (a count of the amounts, or of distinct categories, is as telling as their sum).
 */
function contributorsOf(measure: string, items: readonly ItemRow[]): number {
  switch (measure) {
    case 'rows':
      return items.length;
    case 'cats':
      return items.filter((item) => item.cat !== null).length;
    case 'owner_sizes':
      return items.filter((item) => item.size !== null).length;
    default:
      return items.filter((item) => item.amount !== null).length;
  }
}

function measureOf(measure: string, items: readonly ItemRow[]): number | null {
  const amounts = items.map((item) => item.amount).filter((amount): amount is number => amount !== null);
  const sum = (values: readonly number[]) => values.reduce((total, v) => total + v, 0);
  switch (measure) {
    case 'rows':
      return items.length;
    case 'amounts':
      return amounts.length;
    case 'total':
      return amounts.length === 0 ? null : sum(amounts);
    case 'mean':
      return amounts.length === 0 ? null : sum(amounts) / amounts.length;
    case 'low':
      return amounts.length === 0 ? null : Math.min(...amounts);
    case 'high':
      return amounts.length === 0 ? null : Math.max(...amounts);
    case 'middle': {
      if (amounts.length === 0) return null;
      const sorted = [...amounts].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1
        ? (sorted[mid] as number)
        : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
    }
    case 'spread': {
      if (amounts.length < 2) return null;
      const mean = sum(amounts) / amounts.length;
      return Math.sqrt(sum(amounts.map((v) => (v - mean) ** 2)) / (amounts.length - 1));
    }
    case 'cats':
      return new Set(items.map((item) => item.cat).filter((cat) => cat !== null)).size;
    case 'owner_sizes': {
      const sizes = items.map((item) => item.size).filter((size): size is number => size !== null);
      return sizes.length === 0 ? null : sum(sizes);
    }
    default:
      throw new TypeError(measure);
  }
}

function close(actual: number | null, expected: number | null): boolean {
  if (actual === null || expected === null) return actual === expected;
  return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
}

describe('computeAggregate', () => {
  it('agrees with a reference computation on generated data (group-by, filters, relationship, suppression)', async () => {
    await fc.assert(
      fc.asyncProperty(itemRows, ownerRows, queries, async (rawItems, regions, query) => {
        const items: ItemRow[] = rawItems.map((item, i) => ({ id: i + 1, ...item }));
        const owners: OwnerRow[] = OWNERS.map((owner_id, i) => ({ owner_id, region: regions[i] ?? null }));
        const generation = await testGeneration(catalog, items, owners);
        const aggregate = testAggregate(catalog, query.aggregate.id);
        const filters: Record<string, unknown> = {};
        if (query.cats) filters.cat = query.cats;
        if (query.amountFrom !== undefined) filters.amount = { from: query.amountFrom };
        if (query.region) filters['owner.region'] = query.region;
        const parsed = parseAggregateBody(aggregate, {
          group_by: query.groupBy,
          measures: query.measures,
          filters,
          max_rows: query.maxRows,
        });
        const actual = computeAggregate(generation, aggregate, parsed);
        const expected = reference(items, owners, query);
        assert.equal(actual.suppressedGroups, expected.suppressedGroups);
        assert.equal(actual.truncated, expected.truncated);
        assert.equal(actual.observations.length, expected.observations.length);
        actual.observations.forEach((observation, i) => {
          const want = expected.observations[i];
          assert.ok(want);
          assert.deepEqual(observation.keys, want.keys);
          assert.equal(observation.masked, want.masked);
          assert.deepEqual(observation.suppressedMeasures, want.suppressedMeasures);
          observation.values.forEach((got, m) => {
            assert.ok(
              close(got, want.values[m] ?? null),
              `${query.measures[m]}: ${got} != ${want.values[m]}`,
            );
          });
        });
      }),
      { numRuns: 150 },
    );
  });

  it('groups every row once and sums exactly on integer data', async () => {
    const items: ItemRow[] = Array.from({ length: 1000 }, (_, i) => ({
      id: i + 1,
      cat: ['a', 'b', 'c'][i % 3] as string,
      flag: i % 2 === 0,
      size: (i % 4) + 1,
      amount: i,
      owner_id: OWNERS[i % 5] as string,
    }));
    const owners = OWNERS.map((owner_id) => ({ owner_id, region: owner_id === 'o1' ? null : 'north' }));
    const generation = await testGeneration(catalog, items, owners);
    const aggregate = testAggregate(catalog, 'open');
    const result = computeAggregate(
      generation,
      aggregate,
      parseAggregateBody(aggregate, { group_by: ['region', 'cat'], measures: ['rows', 'total'] }),
    );
    assert.deepEqual(
      result.observations.map((o) => o.keys),
      [
        ['north', 'a'],
        ['north', 'b'],
        ['north', 'c'],
        [null, 'a'],
        [null, 'b'],
        [null, 'c'],
      ],
    );
    assert.equal(
      result.observations.reduce((n, o) => n + (o.values[0] as number), 0),
      1000,
    );
    assert.equal(
      result.observations.reduce((n, o) => n + (o.values[1] as number), 0),
      (999 * 1000) / 2,
    );
  });

  it('answers one total without group_by and rounds to the configured decimals', async () => {
    const items = itemsOfAmounts([1, 2, 2]);
    const generation = await testGeneration(catalog, items, []);
    const aggregate = testAggregate(catalog, 'open');
    const result = computeAggregate(
      generation,
      aggregate,
      parseAggregateBody(aggregate, {
        group_by: [],
        measures: ['rows', 'mean', 'owner_sizes', 'spread', 'mean_rounded'],
      }),
    );
    assert.equal(result.observations.length, 1);
    assert.deepEqual(result.observations[0]?.keys, []);
    const [rows, mean, sizes, spread, rounded] = result.observations[0]?.values ?? [];
    assert.equal(rows, 3);
    assert.ok(close(mean ?? null, 5 / 3));
    assert.equal(rounded, 1.67);
    assert.equal(sizes, null, 'a sum over only null values is null');
    assert.ok(close(spread ?? null, Math.sqrt(1 / 3)));
  });

  it('gives equal values a standard deviation of exactly 0, though their double mean is off by a rounding', async () => {
    // 0.1 + 0.1 + 0.1 is 0.30000000000000004: deviations from that mean are not 0, the spread of the values is.
    const aggregate = testAggregate(catalog, 'open');
    for (const amounts of [
      [0.1, 0.1, 0.1],
      [0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7],
      [-3.3, -3.3],
    ]) {
      const generation = await testGeneration(catalog, itemsOfAmounts(amounts), []);
      const result = computeAggregate(
        generation,
        aggregate,
        parseAggregateBody(aggregate, { group_by: [], measures: ['spread', 'rows'] }),
      );
      assert.deepEqual(result.observations[0]?.values, [0, amounts.length], String(amounts));
    }
  });

  it('answers no observation when the filters match nothing', async () => {
    const generation = await testGeneration(
      catalog,
      [{ id: 1, cat: 'a', flag: true, size: 1, amount: 5, owner_id: 'o1' }],
      [{ owner_id: 'o1', region: 'north' }],
    );
    const aggregate = testAggregate(catalog, 'masking');
    const result = computeAggregate(
      generation,
      aggregate,
      parseAggregateBody(aggregate, { filters: { cat: 'b' } }),
    );
    assert.deepEqual(result, { observations: [], suppressedGroups: 0, truncated: false });
  });

  it('orders groups by code point, as filters do, so max_rows keeps the first of that order', async () => {
    // By UTF-16 units the emoji (a surrogate pair) would sort before U+FF1D; by code point it is after.
    const cats = ['\u{1F600}', '\uFF1D', 'z'];
    const items: ItemRow[] = cats.map((cat, i) => ({
      id: i + 1,
      cat,
      flag: null,
      size: null,
      amount: 1,
      owner_id: null,
    }));
    const generation = await testGeneration(catalog, items, []);
    const aggregate = testAggregate(catalog, 'open');
    const all = computeAggregate(generation, aggregate, parseAggregateBody(aggregate, { group_by: ['cat'] }));
    assert.deepEqual(
      all.observations.map((o) => o.keys[0]),
      ['z', '\uFF1D', '\u{1F600}'],
    );
    const first = computeAggregate(
      generation,
      aggregate,
      parseAggregateBody(aggregate, { group_by: ['cat'], measures: ['rows'], max_rows: 2 }),
    );
    assert.deepEqual(
      first.observations.map((o) => o.keys[0]),
      ['z', '\uFF1D'],
    );
    assert.equal(first.truncated, true);
  });

  it('reports a measure that overflows the double range as null, never Infinity or NaN', async () => {
    // Not all equal: equal values have a spread of 0 whatever their sum.
    const items = itemsOfAmounts([1e308, 1e308, 1.5e308]);
    const generation = await testGeneration(catalog, items, []);
    const aggregate = testAggregate(catalog, 'open');
    const measures = ['rows', 'total', 'mean', 'spread', 'high', 'mean_rounded'];
    const result = computeAggregate(
      generation,
      aggregate,
      parseAggregateBody(aggregate, { group_by: ['cat'], measures }),
    );
    assert.deepEqual(result.observations[0]?.values, [3, null, null, null, 1.5e308, null]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Problem } from '../../platform/problem/problem.ts';
import { testAggregate, testCatalog } from './aggregate-test-support.ts';
import { bodyFormat, parseAggregateBody, parseAggregateParams } from './parse-aggregate-request.ts';

const aggregate = testAggregate(testCatalog(), 'open');

function problem(run: () => unknown, code: string): Problem {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof Problem, String(error));
    assert.equal(error.code, code, error.detail);
    return error;
  }
  assert.fail(`expected ${code}`);
}

describe('parseAggregateParams (GET)', () => {
  it('defaults to default_group_by and every measure, with max_rows 10,000', () => {
    const query = parseAggregateParams(aggregate, {});
    assert.deepEqual(
      query.groupBy.map((d) => d.id),
      ['cat'],
    );
    assert.deepEqual(
      query.measures.map((m) => m.id),
      [...aggregate.measures.keys()],
    );
    assert.equal(query.maxRows, 10_000);
    assert.deepEqual(query.filters, []);
  });

  it('reads comma lists, an empty group_by (one total) and filters in the entity syntax', () => {
    const query = parseAggregateParams(aggregate, {
      group_by: '',
      measures: 'rows, total',
      max_rows: '7',
      cat: 'a',
      'size.in': '1,2,2',
      'amount.between': '1.5,9',
      'owner.region': 'north',
      'owner.region.in': 'south,east',
    });
    assert.deepEqual(query.groupBy, []);
    assert.deepEqual(
      query.measures.map((m) => m.id),
      ['rows', 'total'],
    );
    assert.equal(query.maxRows, 7);
    assert.deepEqual(
      query.filters.map((f) => [f.path.path, f.op, f.values]),
      [
        ['cat', 'eq', ['a']],
        ['size', 'in', [1, 2]],
        ['amount', 'between', [1.5, 9]],
        ['owner.region', 'eq', ['north']],
        ['owner.region', 'in', ['south', 'east']],
      ],
    );
  });

  it('rejects unknown measures and dimensions, repeats and limits', () => {
    problem(() => parseAggregateParams(aggregate, { measures: 'rowz' }), 'aggregate.unknown_measure');
    problem(() => parseAggregateParams(aggregate, { group_by: 'colour' }), 'aggregate.unknown_dimension');
    problem(() => parseAggregateParams(aggregate, { measures: 'rows,rows' }), 'aggregate.invalid_query');
    problem(() => parseAggregateParams(aggregate, { measures: '' }), 'aggregate.invalid_query');
    problem(
      () => parseAggregateParams(aggregate, { group_by: 'cat,flag,size,region,cat,flag' }),
      'aggregate.limit_exceeded',
    );
    for (const maxRows of ['0', '10001', '-1', '1.5', 'ten', '']) {
      problem(() => parseAggregateParams(aggregate, { max_rows: maxRows }), 'aggregate.limit_exceeded');
    }
    problem(() => parseAggregateParams(aggregate, { measures: ['rows', 'total'] }), 'filter.invalid_value');
  });

  it('rejects filters that are not allowed, unsupported operators and bad values', () => {
    const bad: [Record<string, string>, string][] = [
      [{ flag: 'true' }, 'filter.not_allowed'],
      [{ 'cat.gte': 'a' }, 'filter.not_allowed'],
      [{ 'cat.like': 'a' }, 'filter.unsupported_op'],
      [{ 'size.between': '3,1' }, 'filter.invalid_range'],
      [{ 'size.between': '1' }, 'filter.invalid_range'],
      [{ size: 'big' }, 'filter.invalid_value'],
      [{ cat: ' ' }, 'filter.invalid_value'],
      [{ cat: 'a', 'cat.eq': 'b' }, 'filter.invalid_value'],
      [{ 'size.in': Array.from({ length: 101 }, (_, i) => i).join(',') }, 'filter.too_many_values'],
    ];
    for (const [params, code] of bad) problem(() => parseAggregateParams(aggregate, params), code);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, 'x']));
    problem(() => parseAggregateParams(aggregate, many), 'filter.too_many_filters');
  });
});

describe('parseAggregateBody (POST)', () => {
  it('maps scalars to eq, arrays to in and {from, to} to ranges', () => {
    const query = parseAggregateBody(aggregate, {
      measures: ['mean'],
      group_by: ['region', 'cat'],
      filters: { cat: ['a', 'b'], size: 2, amount: { from: 1, to: 2.5 }, 'owner.region': 'north' },
      max_rows: 3,
      format: 'csv',
    });
    assert.deepEqual(
      query.groupBy.map((d) => d.id),
      ['region', 'cat'],
    );
    assert.equal(query.maxRows, 3);
    assert.deepEqual(
      query.filters.map((f) => [f.path.path, f.op, f.values]),
      [
        ['cat', 'in', ['a', 'b']],
        ['size', 'eq', [2]],
        ['amount', 'between', [1, 2.5]],
        ['owner.region', 'eq', ['north']],
      ],
    );
    const oneSided = parseAggregateBody(aggregate, { filters: { amount: { to: '4' }, size: { from: 2 } } });
    assert.deepEqual(
      oneSided.filters.map((f) => [f.op, f.values]),
      [
        ['lte', [4]],
        ['gte', [2]],
      ],
    );
  });

  it('accepts `indicators` as the old name of `measures`, an absent body, and reads `format` first', () => {
    assert.deepEqual(
      parseAggregateBody(aggregate, { indicators: ['rows'] }).measures.map((m) => m.id),
      ['rows'],
    );
    assert.equal(parseAggregateBody(aggregate, undefined).measures.length, aggregate.measures.size);
    assert.equal(bodyFormat({ format: 'sdmx-json', measures: 'not checked yet' }), 'sdmx-json');
    assert.equal(bodyFormat(undefined), undefined);
    problem(() => bodyFormat({ format: 3 }), 'aggregate.invalid_query');
  });

  it('rejects malformed bodies', () => {
    const bad: [unknown, string][] = [
      [[], 'aggregate.invalid_query'],
      ['measures', 'aggregate.invalid_query'],
      [{ measure: ['rows'] }, 'aggregate.invalid_query'],
      [{ measures: 'rows' }, 'aggregate.invalid_query'],
      [{ measures: ['rows'], indicators: ['rows'] }, 'aggregate.invalid_query'],
      [{ group_by: [1] }, 'aggregate.invalid_query'],
      [{ filters: [] }, 'aggregate.invalid_query'],
      [{ filters: { amount: { from: 1, until: 2 } } }, 'aggregate.invalid_query'],
      [{ filters: { amount: {} } }, 'aggregate.invalid_query'],
      [{ filters: { cat: { nested: true } } }, 'aggregate.invalid_query'],
      [{ filters: { cat: [['a']] } }, 'filter.invalid_value'],
      [{ filters: { cat: null } }, 'filter.invalid_value'],
      [{ filters: { size: 1.5 } }, 'filter.invalid_value'],
      [{ filters: { size: true } }, 'filter.invalid_value'],
      [{ filters: { cat: { from: 'a' } } }, 'filter.not_allowed'],
      [{ filters: { amount: [1] } }, 'filter.not_allowed'],
      [{ filters: { amount: { from: 5, to: 1 } } }, 'filter.invalid_range'],
      [{ temporal: { from: '2026-01' } }, 'aggregate.invalid_query'],
      [{ max_rows: '10' }, 'aggregate.invalid_query'],
      [{ max_rows: 0 }, 'aggregate.limit_exceeded'],
      [{ measures: Array.from({ length: 21 }, () => 'rows') }, 'aggregate.limit_exceeded'],
      [{ measures: ['total', 'nope'] }, 'aggregate.unknown_measure'],
      [{ group_by: ['cat', 'cat'] }, 'aggregate.invalid_query'],
    ];
    for (const [body, code] of bad) problem(() => parseAggregateBody(aggregate, body), code);
  });
});

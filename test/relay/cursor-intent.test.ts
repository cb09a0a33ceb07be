// What a cursor is bound to: the query's meaning, not its spelling. Reordering the same filters (or the values of
// an `.in`) is the same query, so its cursor continues it; a projection or expansion order changes the answer's
// bytes, so it stays part of the binding.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { type DemoData, readDemoData } from './read-demo-data.ts';

const SP = '/v1/datasets/social_protection/entities';
const HOUSEHOLDS = `${SP}/households/records`;
const PAYMENTS = `${SP}/payments/records`;

describe('cursor binding to the query intent', () => {
  let relay: TestRelay;
  let demo: DemoData;
  before(async () => {
    [relay, demo] = await Promise.all([startDemoRelay(), readDemoData()]);
  });
  after(() => relay.close());

  async function read(path: string) {
    const response = await relay.get(path, { as: 'caseworker' });
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    const body = response.json();
    return {
      response,
      ids: body.data.map((row: Record<string, unknown>) => row.payment_id ?? row.household_id) as string[],
      cursor: body.pagination.next_cursor as string | undefined,
    };
  }

  it('survives reordering the filters and the values of an `.in`', async () => {
    const expected = demo.payments
      .filter((row) => ['paid', 'failed'].includes(row.payment_status as string))
      .filter((row) => (row.cycle as string) >= '2024-06')
      .map((row) => row.payment_id as string);
    assert.ok(expected.length > 10);
    const first = await read(`${PAYMENTS}?payment_status.in=paid,failed&cycle.gte=2024-06&limit=5`);
    assert.ok(first.cursor);
    for (const query of [
      'cycle.gte=2024-06&payment_status.in=paid,failed',
      'payment_status.in=failed,paid&cycle.gte=2024-06',
      'cycle.gte=2024-06&payment_status.in=failed, paid,failed',
    ]) {
      const next = await read(`${PAYMENTS}?${query}&limit=5&cursor=${first.cursor}`);
      assert.deepEqual(next.ids, expected.slice(5, 10), query);
    }
  });

  it('gives one body to one ETag whatever the filter order', async () => {
    const a = await read(`${PAYMENTS}?payment_status=paid&cycle.gte=2024-06&limit=5`);
    const b = await read(`${PAYMENTS}?cycle.gte=2024-06&payment_status=paid&limit=5`);
    assert.equal(a.response.headers.etag, b.response.headers.etag);
    assert.equal(a.response.body, b.response.body);
  });

  it('still tells apart another projection or expansion order, which changes the answer', async () => {
    const projected = await read(`${HOUSEHOLDS}?fields=household_id,district&limit=5`);
    const expanded = await read(`${HOUSEHOLDS}?expand=members,payments&limit=5`);
    for (const [query, cursor] of [
      ['fields=district,household_id', projected.cursor],
      ['expand=payments,members', expanded.cursor],
    ]) {
      assertProblem(
        await relay.get(`${HOUSEHOLDS}?${query}&limit=5&cursor=${cursor}`, { as: 'caseworker' }),
        400,
        'pagination.cursor_invalidated',
      );
    }
  });
});

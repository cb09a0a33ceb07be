// Inputs of any length within the transport limits: each answers its own problem, whose detail quotes at most
// MAX_QUOTED_LENGTH characters of what the client sent (a 1 MiB body could otherwise name a 1 MiB field, and get
// it back in the answer after a search for a near name through all of it).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { MAX_QUOTED_LENGTH } from '../../src/platform/http/quote-client-text.ts';
import { PAYMENTS, useDemoAggregates } from './aggregates-fixture.ts';
import { assertProblem } from './assert-problem.ts';

const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';
const LONG = 'q'.repeat(100_000);

function assertQuotedInPart(response: Response, status: number, code: string): void {
  assertProblem(response, status, code);
  const detail: string = response.json().detail;
  // The start of the name (with the operator's dot, say), cut with an ellipsis.
  assert.match(
    detail,
    new RegExp(`\`\\.?q{${MAX_QUOTED_LENGTH - 1},${MAX_QUOTED_LENGTH}}…\``),
    detail.slice(0, 300),
  );
  assert.ok(!detail.includes('q'.repeat(MAX_QUOTED_LENGTH + 1)), `${detail.length} characters of detail`);
  assert.ok(detail.length < 2 * MAX_QUOTED_LENGTH + 100, `${detail.length} characters of detail`);
}

describe('inputs longer than any name', () => {
  const setup = useDemoAggregates();

  it('quotes a long name of an aggregate query body in part, under its usual code', async () => {
    const { post } = setup;
    const cases: [unknown, string][] = [
      [{ measures: [LONG] }, 'aggregate.unknown_measure'],
      [{ measures: [LONG, LONG] }, 'aggregate.invalid_query'],
      [{ group_by: [LONG] }, 'aggregate.unknown_dimension'],
      [{ filters: { [LONG]: 'paid' } }, 'filter.not_allowed'],
      [{ [LONG]: 1 }, 'aggregate.invalid_query'],
      [{ format: LONG }, 'aggregate.format_unsupported'],
      [{ filters: { cycle: { from: '2026-01', [LONG]: 1 } } }, 'aggregate.invalid_query'],
      // A range is read before its operator is checked against the field: its name is quoted in part as well.
      [{ filters: { [LONG]: { to: '2026-01', x: 1 } } }, 'aggregate.invalid_query'],
      [{ filters: { [LONG]: { from: ['2026-01'] } } }, 'filter.invalid_value'],
    ];
    for (const [body, code] of cases) {
      assertQuotedInPart(await post(`${PAYMENTS}/query`, body), 400, code);
    }
  });

  it('quotes a long parameter name or value of a GET in part', async () => {
    const { get, relay } = setup;
    const long = LONG.slice(0, 7_000);
    assertQuotedInPart(await get(`${PAYMENTS}?${long}=1`), 400, 'filter.not_allowed');
    assertQuotedInPart(await get(`${PAYMENTS}?cycle.${long}=1`), 400, 'filter.unsupported_op');
    assertQuotedInPart(await get(`${PAYMENTS}?measures=${long}`), 400, 'aggregate.unknown_measure');
    assertQuotedInPart(await get(`${PAYMENTS}?f=${long}`), 400, 'aggregate.format_unsupported');
    assertQuotedInPart(
      await relay.get(`${HOUSEHOLDS}?${long}=1`, { as: 'caseworker' }),
      400,
      'filter.not_allowed',
    );
    assertQuotedInPart(
      await relay.get(`${HOUSEHOLDS}?district.${long}=1`, { as: 'caseworker' }),
      400,
      'filter.unsupported_op',
    );
    assertQuotedInPart(
      await relay.get(`${HOUSEHOLDS}?fields=${long}`, { as: 'caseworker' }),
      400,
      'filter.unknown_field',
    );
    assertQuotedInPart(
      await relay.get(`${HOUSEHOLDS}?expand=${long}`, { as: 'caseworker' }),
      400,
      'expand.not_allowed',
    );
    assertQuotedInPart(
      await relay.get(`${HOUSEHOLDS}/hh-1001?${long}=1`, { as: 'caseworker' }),
      400,
      'filter.not_allowed',
    );
  });

  it('still suggests the near name of a short one', async () => {
    const { post } = setup;
    const response = await post(`${PAYMENTS}/query`, { measures: ['paymnets'] });
    assertProblem(
      response,
      400,
      'aggregate.unknown_measure',
      'no measure `paymnets` (did you mean `payments`?)',
    );
  });
});

// How a parent's CEL rule sees the values of its sub-claims: each with the CEL type its declared `value.type` names,
// whatever the value happens to be.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { fixedDeadline } from '../../platform/deadline.ts';
import type { SourceReader } from '../connectors/source-reader.ts';
import { buildClaimCatalog } from './build-claim-catalog.ts';
import { claimsConfig, ONE_WORKER_CEL } from './cel-test-support.ts';
import { createCelEvaluator } from './create-cel-evaluator.ts';
import { EvaluationTrace, evaluateClaims } from './evaluate-claims.ts';

const binding = (field: string) =>
  `{ connector: registry_data_api, connection: c, dataset: d, entity: e, lookup: { input: target.id, field: id }, fields: [${field}] }`;

const CLAIMS = `
    - { id: income, title: I, version: "1", subject_type: p, value: { type: number },
        source_bindings: { r: ${binding('income')} }, rule: { type: extract, source: r, field: income } }
    - { id: monthly, title: M, version: "1", subject_type: p, value: { type: number },
        source_bindings: { r: ${binding('income')} }, rule: { type: cel, expression: "double(source.r.income) / 12.0" } }
    - { id: size, title: S, version: "1", subject_type: p, value: { type: integer },
        source_bindings: { r: ${binding('size')} }, rule: { type: extract, source: r, field: size } }
    - { id: scaled, title: Sc, version: "1", subject_type: p, value: { type: number }, depends_on: [income, monthly],
        rule: { type: cel, expression: "claims.income.value * 0.5 + claims.monthly.value * 12.0" } }
    - { id: pooled, title: P, version: "1", subject_type: p, value: { type: number }, depends_on: [income],
        rule: { type: cel, expression: "[claims.income.value].map(v, v * 0.5)[0]" } }
    - { id: halved, title: H, version: "1", subject_type: p, value: { type: integer }, depends_on: [size],
        rule: { type: cel, expression: "claims.size.value / 2" } }
`;

const config = claimsConfig(CLAIMS);
const catalog = buildClaimCatalog(config);
const CONTEXT = {
  target: { type: 'p', id: 'x1', identifiers: new Map<string, string>(), attributes: {} },
  purpose: 'https://p.example/x',
  requestId: 'r1',
  today: '2026-01-01',
  deadline: fixedDeadline(Number.POSITIVE_INFINITY),
};

/** A source whose one record holds `row`. */
function readerOf(row: Record<string, unknown>): SourceReader {
  return {
    read: async () => ({ row: { id: 'x1', ...row }, sourceId: 's' }),
    bulkLimit: () => 0,
    readMany: async () => new Map(),
    close() {},
  };
}

describe('sub-claim values in a parent CEL rule', () => {
  const cel = createCelEvaluator(ONE_WORKER_CEL);
  after(() => cel.close());

  const evaluate = async (claimId: string, row: Record<string, unknown>) => {
    const engine = { catalog, reader: readerOf(row), cel, bindingConcurrency: 4 };
    const outcomes = await evaluateClaims(engine, [claimId], CONTEXT, new EvaluationTrace());
    return outcomes.get(claimId)?.value;
  };

  it('binds a number sub-claim as a CEL double, also when its value is whole', async () => {
    // Fractional values: doubles either way.
    assert.equal(await evaluate('scaled', { income: 1500.5 }), 1500.5 * 0.5 + 1500.5);
    // Whole values (1200 read, 1200 / 12.0 = 100.0 computed) reach JSON as 1200 and 100: still numbers, not ints,
    // or `* 0.5` has no overload for one subject and works for the next.
    assert.equal(await evaluate('scaled', { income: 1200 }), 1800);
    // The same in a worker thread (a comprehension is not run on the request thread).
    assert.equal(cel.runsInline('[claims.income.value].map(v, v * 0.5)[0]'), false);
    assert.equal(await evaluate('pooled', { income: 1200 }), 600);
  });

  it('keeps an integer sub-claim an int (integer division)', async () => {
    assert.equal(await evaluate('halved', { size: 7 }), 3);
  });
});

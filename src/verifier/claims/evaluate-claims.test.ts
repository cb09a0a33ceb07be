import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedDeadline } from '../../platform/deadline.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import type { SourceLookup, SourceReader } from '../connectors/source-reader.ts';
import { buildClaimCatalog } from './build-claim-catalog.ts';
import { claimsConfig } from './cel-test-support.ts';
import type { CelEvaluator } from './create-cel-evaluator.ts';
import { checkLookupInputs, EvaluationTrace, evaluateClaims } from './evaluate-claims.ts';

const binding = (connection: string, dataset: string) =>
  `connector: registry_data_api, connection: ${connection}, dataset: ${dataset}, entity: e, lookup: { input: target.id, field: id }, fields: [ok]`;

const CLAIMS = `
    - { id: a, title: A, version: "1", subject_type: p, value: { type: boolean },
        source_bindings: { s: {${binding('one', 'd1')} } }, rule: { type: extract, source: s, field: ok } }
    - { id: b, title: B, version: "1", subject_type: p, value: { type: boolean },
        source_bindings: { s: {${binding('two', 'd2')} } }, rule: { type: extract, source: s, field: ok } }
    - { id: a_again, title: A again, version: "1", subject_type: p, value: { type: boolean },
        source_bindings: { s: {${binding('one', 'd1')} } }, rule: { type: exists, source: s } }
    - { id: both, title: Both, version: "3", subject_type: p, value: { type: boolean }, depends_on: [a, b, a_again],
        rule: { type: cel, expression: "claims.a.value && claims.b.value && claims.a_again.value" } }
    - { id: pair, title: Pair, version: "1", subject_type: p, value: { type: boolean },
        source_bindings: { s: {${binding('one', 'd1')} }, t: {${binding('two', 'd2')} } },
        rule: { type: cel, expression: "source.s.ok && source.t.ok" } }
    - { id: born, title: Born, version: "1", subject_type: p, value: { type: boolean },
        inputs: [{ name: target.attributes.birth_date, type: date }],
        rule: { type: cel, expression: "timestamp(ctx.target.attributes.birth_date + 'T00:00:00Z') < timestamp('2008-01-01T00:00:00Z')" } }
`;

function setup() {
  const catalog = buildClaimCatalog(claimsConfig(CLAIMS));
  let inFlight = 0;
  let peak = 0;
  const lookups: SourceLookup[] = [];
  const reader: SourceReader = {
    async read(lookup) {
      lookups.push(lookup);
      lookup.trace?.readSent();
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 10));
      inFlight--;
      const { connection, dataset, entity } = lookup.binding;
      return { row: { ok: true }, sourceId: `${connection}/${dataset}/${entity}` };
    },
    bulkLimit: () => 0,
    readMany: async () => new Map(),
    close() {},
  };
  const cel: CelEvaluator = {
    maxResultBytes: 16_384,
    warm() {},
    async evaluate(_expression, bindings) {
      const claims = bindings.claims as Record<string, { value: unknown }>;
      return Object.values(claims).every((claim) => claim.value === true);
    },
    runsInline: () => false,
    workersFailing: () => false,
    recheck() {},
    async close() {},
  };
  return { catalog, reader, cel, lookups, peak: () => peak };
}

const CONTEXT = {
  target: { type: 'p', id: 'x1', identifiers: new Map<string, string>(), attributes: {} },
  purpose: 'https://p.example/x',
  requestId: 'r1',
  today: '2026-01-01',
  deadline: fixedDeadline(12_345),
};

describe('claim evaluation over the dependency graph', () => {
  it('reads independent sub-claims in parallel, shares identical reads, counts distinct sources', async () => {
    const { catalog, reader, cel, lookups, peak } = setup();
    const trace = new EvaluationTrace();
    const outcomes = await evaluateClaims(
      { catalog, reader, cel, bindingConcurrency: 8 },
      ['both', 'a'],
      CONTEXT,
      trace,
    );
    assert.equal(outcomes.get('both')?.value, true);
    assert.equal(outcomes.get('both')?.sources.size, 2);
    assert.equal(outcomes.get('a')?.sources.size, 1);
    // a and a_again read the same record: one request.
    assert.equal(lookups.length, 2);
    assert.equal(trace.sourceReads, 2);
    assert.equal(peak(), 2);
    // Each read carries the request's deadline and the evaluation's trace, which the reader tells when it sends.
    assert.deepEqual(
      lookups.map((lookup) => [lookup.value, lookup.purpose, lookup.requestId, lookup.deadline]),
      [
        ['x1', 'https://p.example/x', 'r1', 12_345],
        ['x1', 'https://p.example/x', 'r1', 12_345],
      ],
    );
    assert.ok(lookups.every((lookup) => lookup.trace === trace));
  });

  it('keeps to the binding concurrency limit', async () => {
    const { catalog, reader, cel, peak } = setup();
    await evaluateClaims(
      { catalog, reader, cel, bindingConcurrency: 1 },
      ['both'],
      CONTEXT,
      new EvaluationTrace(),
    );
    assert.equal(peak(), 1);
  });

  it('reports the first failure after every started read has finished', async () => {
    const { catalog, cel } = setup();
    let finished = 0;
    const failing: SourceReader = {
      async read(lookup) {
        await new Promise((resolve) => setTimeout(resolve, lookup.binding.connection === 'one' ? 1 : 20));
        finished++;
        if (lookup.binding.connection === 'one') throw new Error('boom');
        return { row: { ok: true }, sourceId: 's' };
      },
      bulkLimit: () => 0,
      readMany: async () => new Map(),
      close() {},
    };
    await assert.rejects(
      evaluateClaims(
        { catalog, reader: failing, cel, bindingConcurrency: 8 },
        ['both'],
        CONTEXT,
        new EvaluationTrace(),
      ),
      /boom/,
    );
    assert.equal(finished, 2);
  });

  it('answers the first failure in order, not the first to arrive, once every read of the claim has finished', async () => {
    const { catalog, cel } = setup();
    let finished = 0;
    // The first binding (and sub-claim) fails late, the second early: the answer must not depend on timing.
    const failing: SourceReader = {
      async read(lookup) {
        const first = lookup.binding.connection === 'one';
        await new Promise((resolve) => setTimeout(resolve, first ? 20 : 1));
        finished++;
        throw new Error(first ? 'first' : 'second');
      },
      bulkLimit: () => 0,
      readMany: async () => new Map(),
      close() {},
    };
    for (const claimId of ['pair', 'both']) {
      finished = 0;
      await assert.rejects(
        evaluateClaims(
          { catalog, reader: failing, cel, bindingConcurrency: 8 },
          [claimId],
          CONTEXT,
          new EvaluationTrace(),
        ),
        /first/,
        claimId,
      );
      assert.equal(finished, 2, `${claimId}: no read left running`);
    }
  });

  it('refuses a target attribute declared date unless it is a calendar date that exists (400, not a rule failure)', () => {
    const { catalog } = setup();
    const check = (birthDate: string) => () =>
      checkLookupInputs(catalog, ['born'], { ...CONTEXT.target, attributes: { birth_date: birthDate } });
    for (const accepted of ['2000-01-31', '2000-02-29', '1900-12-01'])
      assert.doesNotThrow(check(accepted), accepted);
    // Each would pass to the rule and fail there, a 500 for the caller's mistake.
    for (const refused of [
      '2000-02-30',
      '1900-02-29',
      '2000-13-01',
      '2000-00-10',
      '2000-01-01T00:00:00Z',
      '2000-01-01x',
    ]) {
      assert.throws(
        check(refused),
        (error: unknown) => {
          assert.ok(isProblem(error));
          assert.equal(error.status, 400);
          assert.equal(error.code, 'request.invalid');
          assert.match(String(error.detail), /`target\.attributes\.birth_date` must be of type date/);
          return true;
        },
        refused,
      );
    }
  });
});

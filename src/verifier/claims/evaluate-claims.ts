// Evaluates requested claims over their dependency graph: each claim once, independent claims and bindings
// in parallel (bounded), identical source reads shared within one evaluation.
import type { SourceBindingConfig } from '../config/schema.ts';
import { createSemaphore } from '../connectors/create-semaphore.ts';
import type { SourceReader } from '../connectors/source-reader.ts';
import { type EvaluationTarget, lookupValue } from '../evaluation/parse-evaluation-request.ts';
import { verifierProblem } from '../problems.ts';
import { applyRule } from './apply-rule.ts';
import type { ClaimCatalog } from './build-claim-catalog.ts';
import type { CelEvaluator } from './create-cel-evaluator.ts';

export interface ClaimOutcome {
  readonly claimId: string;
  readonly version: string;
  readonly value: unknown;
  /** Distinct sources (connection/dataset/entity) behind the value, dependencies' included. */
  readonly sources: ReadonlySet<string>;
}

export interface EvaluationContext {
  readonly target: EvaluationTarget;
  readonly purpose: string;
  /** Forwarded upstream as `x-request-id`. */
  readonly requestId: string;
  readonly today: string;
}

export interface ClaimEngine {
  readonly catalog: ClaimCatalog;
  readonly reader: SourceReader;
  readonly cel: CelEvaluator;
  /** At most this many source reads of one evaluation run at once. */
  readonly bindingConcurrency: number;
}

/** Counters an evaluation reports for its audit event. */
export interface EvaluationTrace {
  sourceReads: number;
}

/** Fails before any read when a binding's lookup input is missing from the request. */
export function checkLookupInputs(
  catalog: ClaimCatalog,
  claimIds: readonly string[],
  target: EvaluationTarget,
): void {
  for (const id of claimIds) {
    for (const input of catalog.claims.get(id)?.targetInputs ?? []) {
      if (lookupValue(target, input) === undefined) {
        throw verifierProblem('target.identifier_missing', `Claim ${id} needs \`${input}\` in the request.`);
      }
    }
  }
}

export async function evaluateClaims(
  engine: ClaimEngine,
  claimIds: readonly string[],
  context: EvaluationContext,
  trace: EvaluationTrace,
): Promise<Map<string, ClaimOutcome>> {
  const outcomes = new Map<string, Promise<ClaimOutcome>>();
  const reads = new Map<string, Promise<{ row: Readonly<Record<string, unknown>>; sourceId: string }>>();
  const permits = createSemaphore(engine.bindingConcurrency);

  const read = (binding: SourceBindingConfig) => {
    const value = lookupValue(context.target, binding.lookup.input) as string;
    const key = JSON.stringify([
      binding.connection,
      binding.dataset,
      binding.entity,
      binding.lookup.field,
      value,
      [...binding.fields].sort(),
    ]);
    let pending = reads.get(key);
    if (!pending) {
      trace.sourceReads++;
      pending = permits.run(() =>
        engine.reader.read({ binding, value, purpose: context.purpose, requestId: context.requestId }),
      );
      reads.set(key, pending);
    }
    return pending;
  };

  const evaluate = (id: string): Promise<ClaimOutcome> => {
    let pending = outcomes.get(id);
    if (!pending) {
      pending = evaluateOne(id);
      outcomes.set(id, pending);
    }
    return pending;
  };

  const evaluateOne = async (id: string): Promise<ClaimOutcome> => {
    const claim = engine.catalog.claims.get(id)?.config;
    if (!claim) throw verifierProblem('claim.not_found', `No claim ${id}.`);
    const [dependencies, rows] = await Promise.all([
      Promise.all(claim.depends_on.map(evaluate)),
      Promise.all(
        Object.entries(claim.source_bindings).map(
          async ([alias, binding]) => [alias, await read(binding)] as const,
        ),
      ),
    ]);
    const sources = new Set<string>();
    for (const dependency of dependencies) for (const source of dependency.sources) sources.add(source);
    for (const [, record] of rows) sources.add(record.sourceId);
    const value = await applyRule(
      claim,
      {
        rows: new Map(rows.map(([alias, record]) => [alias, record.row])),
        dependencies: new Map(dependencies.map((outcome) => [outcome.claimId, outcome])),
        target: context.target,
        purpose: context.purpose,
        today: context.today,
      },
      engine.cel,
    );
    return { claimId: id, version: claim.version, value, sources };
  };

  const settled = await Promise.allSettled(claimIds.map(evaluate));
  // Every started read and rule has finished before the first failure is reported.
  await Promise.allSettled([...outcomes.values()]);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return new Map(
    settled.map((result) => [
      (result as PromiseFulfilledResult<ClaimOutcome>).value.claimId,
      (result as PromiseFulfilledResult<ClaimOutcome>).value,
    ]),
  );
}

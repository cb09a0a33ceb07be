// Evaluates requested claims over their dependency graph: each claim once, independent claims and bindings
// in parallel (bounded), identical source reads shared within one evaluation.
import type { Deadline } from '../../platform/deadline.ts';
import type { SourceBindingConfig, ValueType } from '../config/schema.ts';
import { createSemaphore, type Semaphore } from '../connectors/create-semaphore.ts';
import type { ReadTrace, SourceReader } from '../connectors/source-reader.ts';
import { type EvaluationTarget, lookupValue } from '../evaluation/parse-evaluation-request.ts';
import { claimProblem, verifierProblem } from '../problems.ts';
import { applyRule, inputTypeMismatch } from './apply-rule.ts';
import type { ClaimCatalog } from './build-claim-catalog.ts';
import type { CelEvaluator } from './create-cel-evaluator.ts';

export interface ClaimOutcome {
  readonly claimId: string;
  readonly version: string;
  readonly value: unknown;
  /** The claim's declared `value.type`: a parent's CEL rule reads the value as that type. */
  readonly valueType: ValueType;
  /** Distinct sources (connection/dataset/entity) behind the value, dependencies' included. */
  readonly sources: ReadonlySet<string>;
}

export interface EvaluationContext {
  readonly target: EvaluationTarget;
  readonly purpose: string;
  /** Forwarded upstream as `x-request-id`. */
  readonly requestId: string;
  readonly today: string;
  /** When the request is answered whatever happens (earlier if its client goes away): no read starts later. */
  readonly deadline: Deadline;
}

export interface ClaimEngine {
  readonly catalog: ClaimCatalog;
  readonly reader: SourceReader;
  readonly cel: CelEvaluator;
  /** At most this many source reads of one evaluation run at once. */
  readonly bindingConcurrency: number;
}

/**
 * The reads of an evaluation that reached their source, for its audit event: counted as they leave, so an answer
 * sent before the evaluation ends (its 504) is audited with the reads made so far. With `audit`, its
 * `sourceReadCount` follows the count; with `total`, the count is added there too (a batch's items).
 */
export class EvaluationTrace implements ReadTrace {
  sourceReads = 0;
  private readonly audit: { sourceReadCount?: number } | undefined;
  private readonly total: ReadTrace | undefined;

  constructor(audit?: { sourceReadCount?: number }, total?: ReadTrace) {
    this.audit = audit;
    this.total = total;
  }

  readSent(): void {
    this.sourceReads++;
    if (this.audit !== undefined) this.audit.sourceReadCount = this.sourceReads;
    this.total?.readSent();
  }
}

/**
 * Fails before any read when the target is not of a claim's `subject_type` (a claim about a person asked of an
 * organisation would look it up by identifiers alone), when a binding's lookup input is missing from the request,
 * or blank, or when a target attribute is not of the type a claim declares for it (`inputs`): the caller's
 * mistake, where the read or the rule would answer for another kind of subject, or fail.
 */
export function checkLookupInputs(
  catalog: ClaimCatalog,
  claimIds: readonly string[],
  target: EvaluationTarget,
): void {
  for (const id of claimIds) {
    const claim = catalog.claims.get(id);
    if (claim !== undefined && claim.config.subject_type !== target.type) {
      throw claimProblem(
        verifierProblem(
          'target.type_mismatch',
          // The type sent is not echoed: a caller-sent name may hold anything.
          `Claim ${id} is about subjects of type ${claim.config.subject_type}, not the target's type.`,
        ),
        id,
      );
    }
    for (const input of claim?.targetInputs ?? []) {
      if (lookupValue(target, input) === undefined) {
        throw claimProblem(
          verifierProblem(
            'target.identifier_missing',
            `Claim ${id} needs \`${input}\` (not blank) in the request.`,
          ),
          id,
        );
      }
    }
    for (const { path, name, type, claimId } of claim?.attributeTypes ?? []) {
      if (!Object.hasOwn(target.attributes, name)) continue;
      if (inputTypeMismatch(target.attributes[name], type) !== undefined) {
        throw claimProblem(
          verifierProblem('request.invalid', `\`${path}\` must be of type ${type} (claim ${claimId}).`),
          id,
        );
      }
    }
  }
}

export async function evaluateClaims(
  engine: ClaimEngine,
  claimIds: readonly string[],
  context: EvaluationContext,
  trace: ReadTrace,
): Promise<Map<string, ClaimOutcome>> {
  const run = new ClaimGraphRun(engine, context, trace);
  const settled = await Promise.allSettled(claimIds.map((id) => run.evaluate(id)));
  // Every started read and rule has finished before the first failure is reported.
  await run.settled();
  const outcomes = new Map<string, ClaimOutcome>();
  for (const [index, result] of settled.entries()) {
    // The first failing claim in request order answers, naming itself (a sub-claim's failure is its parent's).
    if (result.status === 'rejected') throw claimProblem(result.reason, claimIds[index] as string);
    outcomes.set(result.value.claimId, result.value);
  }
  return outcomes;
}

type ReadRecord = { readonly row: Readonly<Record<string, unknown>>; readonly sourceId: string };

/**
 * One evaluation's claim graph: each claim evaluated once, each distinct read made once. A class rather than
 * closures: it runs for every evaluation, and the service runs through tsx, whose name-keeping wraps every
 * function created per call (an Object.defineProperty each).
 */
class ClaimGraphRun {
  private readonly outcomes = new Map<string, Promise<ClaimOutcome>>();
  private readonly reads = new Map<string, Promise<ReadRecord>>();
  private readonly permits: Semaphore;
  private readonly engine: ClaimEngine;
  private readonly context: EvaluationContext;
  private readonly trace: ReadTrace;

  constructor(engine: ClaimEngine, context: EvaluationContext, trace: ReadTrace) {
    this.engine = engine;
    this.context = context;
    this.trace = trace;
    this.permits = createSemaphore(engine.bindingConcurrency);
  }

  evaluate(id: string): Promise<ClaimOutcome> {
    let pending = this.outcomes.get(id);
    if (!pending) {
      pending = this.evaluateOne(id);
      this.outcomes.set(id, pending);
    }
    return pending;
  }

  /** Resolves once every claim started so far has finished, whatever its outcome. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.outcomes.values());
  }

  private read(binding: SourceBindingConfig): Promise<ReadRecord> {
    const { context } = this;
    const value = lookupValue(context.target, binding.lookup.input) as string;
    const key = `${readKeyOf(binding)}${JSON.stringify(value)}`;
    let pending = this.reads.get(key);
    if (!pending) {
      const deadline = context.deadline;
      const lookup = {
        binding,
        value,
        purpose: context.purpose,
        requestId: context.requestId,
        // Read by the reader when it decides (a lookup queued behind others is dropped once its request is
        // answered); an own property, so that a copy of the lookup takes the deadline as it then stands.
        get deadline() {
          return deadline.at;
        },
        trace: this.trace,
      };
      const reader = this.engine.reader;
      pending = this.permits.run(() => reader.read(lookup));
      this.reads.set(key, pending);
    }
    return pending;
  }

  private async evaluateOne(id: string): Promise<ClaimOutcome> {
    const claim = this.engine.catalog.claims.get(id)?.config;
    if (!claim) throw verifierProblem('claim.not_found', `No claim ${id}.`);
    const aliases = Object.keys(claim.source_bindings);
    const [dependencies, records] = await allInOrder<[ClaimOutcome[], ReadRecord[]]>([
      allInOrder(claim.depends_on.map((dependency) => this.evaluate(dependency))),
      allInOrder(aliases.map((alias) => this.read(claim.source_bindings[alias] as SourceBindingConfig))),
    ]);
    const sources = new Set<string>();
    for (const dependency of dependencies) for (const source of dependency.sources) sources.add(source);
    const rows = new Map<string, Readonly<Record<string, unknown>>>();
    records.forEach((record, index) => {
      sources.add(record.sourceId);
      rows.set(aliases[index] as string, record.row);
    });
    const value = await applyRule(
      claim,
      {
        rows,
        dependencies: new Map(dependencies.map((outcome) => [outcome.claimId, outcome])),
        target: this.context.target,
        purpose: this.context.purpose,
        today: this.context.today,
        deadline: this.context.deadline,
      },
      this.engine.cel,
    );
    return { claimId: id, version: claim.version, value, valueType: claim.value.type, sources };
  }
}

/**
 * Every value, as Promise.all; but when one fails, waits for the others and throws the first failure in order
 * (sub-claims in `depends_on` order, then bindings): which problem a claim answers (409 or 503, say) must not depend
 * on which source answered first, and no read of a failed claim is left running once its failure is reported.
 */
async function allInOrder<T extends readonly unknown[]>(
  promises: {
    readonly [K in keyof T]: Promise<T[K]>;
  },
): Promise<T> {
  try {
    return (await Promise.all(promises)) as unknown as T;
  } catch {
    const settled = await Promise.allSettled(promises);
    throw (settled.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason;
  }
}

const readKeys = new WeakMap<SourceBindingConfig, string>();

/** What makes two reads of one evaluation the same read, besides the lookup value. */
function readKeyOf(binding: SourceBindingConfig): string {
  let key = readKeys.get(binding);
  if (key === undefined) {
    const fields = [...binding.fields].sort();
    key = JSON.stringify([binding.connection, binding.dataset, binding.entity, binding.lookup.field, fields]);
    readKeys.set(binding, key);
  }
  return key;
}

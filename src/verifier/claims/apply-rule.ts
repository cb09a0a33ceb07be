// Applies a claim's rule to what was read for it (and its dependencies' values), then checks the value type.
import type { Deadline } from '../../platform/deadline.ts';
import type { ClaimConfig, ValueType } from '../config/schema.ts';
import { FailureReason } from '../connectors/failure-reason.ts';
import type { EvaluationTarget } from '../evaluation/parse-evaluation-request.ts';
import { verifierProblem } from '../problems.ts';
import { CelEvaluationError, type CelEvaluator } from './create-cel-evaluator.ts';

export interface RuleInputs {
  /** Binding alias -> the one record read for it. */
  readonly rows: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** Dependency claim id -> its value, and its declared type. */
  readonly dependencies: ReadonlyMap<
    string,
    { readonly value: unknown; readonly version: string; readonly valueType?: ValueType }
  >;
  readonly target: EvaluationTarget;
  readonly purpose: string;
  /** The evaluation date, YYYY-MM-DD (injected clock). */
  readonly today: string;
  /** When the request is answered whatever happens: a CEL task still queued then is dropped, a running one stopped. */
  readonly deadline?: Deadline | undefined;
}

export async function applyRule(claim: ClaimConfig, inputs: RuleInputs, cel: CelEvaluator): Promise<unknown> {
  const rule = claim.rule;
  let value: unknown;
  switch (rule.type) {
    case 'exists':
      // The read already failed unless exactly one record matched.
      value = inputs.rows.has(rule.source);
      break;
    case 'extract': {
      // The field is one of the binding's `fields` (checked at load), so the row needs no projection here.
      const row = inputs.rows.get(rule.source) ?? {};
      if (!Object.hasOwn(row, rule.field)) {
        throw ruleFailed('source.field_missing', `the source record has no field ${rule.field}`);
      }
      value = row[rule.field];
      // Bounded as a CEL result is: a field of any size would otherwise be answered, and kept, as the value.
      if (exceedsBytes(value, cel.maxResultBytes)) {
        throw ruleFailed(
          'extract.too_large',
          `the extracted value is larger than ${cel.maxResultBytes} bytes (cel.max_result_json_bytes)`,
        );
      }
      break;
    }
    case 'cel':
      value = await evaluateCel(claim, rule, inputs, cel);
      break;
    default:
      throw verifierProblem(
        'claim.operation_unsupported',
        `Claim ${claim.id} uses a rule type with no implementation.`,
      );
  }
  const mismatch = typeMismatch(value, claim.value.type);
  if (mismatch) throw ruleFailed('claim.value_type_mismatch', mismatch);
  return value;
}

async function evaluateCel(
  claim: ClaimConfig,
  rule: Extract<ClaimConfig['rule'], { type: 'cel' }>,
  inputs: RuleInputs,
  cel: CelEvaluator,
): Promise<unknown> {
  const aliases = Object.entries(rule.bindings.claims);
  // Without explicit aliases every dependency is bound under its own id (`claims['age-over-18']` if need be).
  const pairs =
    aliases.length > 0
      ? aliases.map(([alias, ref]) => [alias, ref.claim] as const)
      : claim.depends_on.map((id) => [id, id] as const);
  const claims: Record<string, unknown> = {};
  // JSON does not tell 100.0 from 100: a `number` sub-claim would reach CEL as an int when whole, and arithmetic
  // with a double would then fail for some subjects only.
  const doubles: string[] = [];
  for (const [alias, id] of pairs) {
    const dependency = inputs.dependencies.get(id);
    if (dependency?.valueType === 'number') doubles.push(alias);
    claims[alias] = {
      claim_id: id,
      version: dependency?.version ?? null,
      value: dependency?.value ?? null,
      satisfied: typeof dependency?.value === 'boolean' ? dependency.value : null,
    };
  }
  const source: Record<string, unknown> = {};
  for (const [alias, row] of inputs.rows) {
    source[alias] = declaredFields(row, claim.source_bindings[alias]?.fields ?? []);
  }
  const bindings = {
    claims,
    source,
    ctx: {
      purpose: inputs.purpose,
      today: inputs.today,
      target: {
        type: inputs.target.type,
        id: inputs.target.id ?? null,
        identifiers: Object.fromEntries(inputs.target.identifiers),
        attributes: inputs.target.attributes,
      },
    },
  };
  try {
    return await cel.evaluate(
      rule.expression,
      bindings,
      inputs.deadline,
      claim.value.type === 'integer',
      doubles,
    );
  } catch (error) {
    if (error instanceof CelEvaluationError) throw ruleFailed(`cel.${error.reason}`, error.message);
    throw error;
  }
}

/**
 * The record as an expression sees it: the binding's `fields` only. The relay may answer with more, and the
 * lookup field (an identifier) is always read, to match bulk answers back to their values.
 */
function declaredFields(
  row: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): Record<string, unknown> {
  // fromEntries defines properties, so a field named `__proto__` stays a plain field.
  return Object.fromEntries(
    fields.filter((field) => Object.hasOwn(row, field)).map((field) => [field, row[field]]),
  );
}

/** Why `value` is not of the declared type, or undefined when it is (null is of every type). */
export function typeMismatch(value: unknown, type: ValueType): string | undefined {
  if (type === 'any' || value === null) return undefined;
  const ok = (() => {
    switch (type) {
      case 'boolean':
        return typeof value === 'boolean';
      case 'integer':
        return Number.isSafeInteger(value);
      case 'number':
        return typeof value === 'number' && Number.isFinite(value);
      case 'string':
        return typeof value === 'string';
      case 'date':
        return typeof value === 'string' && startsWithCalendarDate(value);
      case 'array':
        return Array.isArray(value);
      default:
        return typeof value === 'object' && !Array.isArray(value);
    }
  })();
  return ok ? undefined : `the value is not of the declared type ${type}`;
}

const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})/;

/** Whether `text` starts `YYYY-MM-DD` with a date that exists (no 2023-02-29, no month 13). */
function startsWithCalendarDate(text: string): boolean {
  const match = DATE_PREFIX.exec(text);
  if (!match) return false;
  const [year, month, day] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  // setUTCFullYear, because Date.UTC reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Why a request input is not of the type a claim declares for it. A `date` input is the date alone: a rule reads it
 * as one (`timestamp(d + 'T00:00:00Z')`), and would fail on more, a 500 for the caller's mistake.
 */
export function inputTypeMismatch(value: unknown, type: ValueType): string | undefined {
  if (type === 'date' && typeof value === 'string' && value.length !== 10) {
    return 'the value is not of the declared type date';
  }
  return typeMismatch(value, type);
}

function ruleFailed(code: string, message: string) {
  // The detail stays generic: a CEL message can quote values taken from source records.
  return verifierProblem('claim.rule_evaluation_failed', 'The claim rule could not be evaluated.', {
    cause: new FailureReason(code, message),
  });
}

/** Whether a JSON value takes more than `limit` bytes; scalars other than strings never do. */
function exceedsBytes(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') {
    // A string's JSON takes at most six bytes a code unit (an escaped control character): measured only when it
    // could be over.
    return (
      typeof value === 'string' &&
      value.length * 6 + 2 > limit &&
      Buffer.byteLength(JSON.stringify(value), 'utf8') > limit
    );
  }
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') > limit;
}

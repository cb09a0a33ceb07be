// Load-time search of a CEL rule for ordering comparisons (`<`, `<=`, `>`, `>=`) between what the caller sends
// (`ctx.target.attributes`, `ctx.target.identifiers`, `ctx.target.id`) and what a record holds (`source.<alias>`, a
// sub-claim's `claims.<alias>.value`). Each answer is judged on its own, so such a rule lets a caller bisect the
// value with repeated evaluations, whatever the disclosure level (docs/verifier.md, Disclosure).
//
// Each node is given the kinds of input it depends on: a side built from caller input through arithmetic, calls,
// conditionals or comprehensions still depends on it, and a comprehension variable depends on what it ranges over.
// Arithmetic of the two (`source.p.age - int(ctx.target.attributes.age) > 0`) compared by order counts as well.
import { parse, unparse } from '@bufbuild/cel';
import { rootOf } from './check-cel-references.ts';
import { accessOf, type CelExpr } from './walk-cel.ts';

type Parsed = ReturnType<typeof parse>;
type Locals = ReadonlyMap<string, number>;

const CALLER = 1;
const RECORD = 2;
/** Arithmetic of caller input with a record value (`source.p.birth + duration(ctx.target.attributes.d)`). */
const COMBINED = 4;
const ARITHMETIC = new Set(['_+_', '_-_', '_*_', '_/_', '_%_']);
const ORDERING: Readonly<Record<string, string>> = { '_<_': '<', '_<=_': '<=', '_>_': '>', '_>=_': '>=' };
const TARGET_INPUTS = new Set(['attributes', 'identifiers', 'id']);
const CLAIM_METADATA = new Set(['claim_id', 'version']);
/** Longer comparisons are named by their operator alone. */
const MAX_FRAGMENT = 80;

type Task =
  | { readonly step: 'visit'; readonly node: CelExpr; readonly locals: Locals }
  | { readonly step: 'none' }
  | { readonly step: 'join'; readonly node: CelExpr; readonly count: number }
  | { readonly step: 'loop'; readonly node: CelExpr; readonly locals: Locals }
  | { readonly step: 'looped'; readonly node: CelExpr; readonly locals: Locals; readonly before: number }
  | { readonly step: 'result'; readonly loop: number };

/** Comparisons a warning names; further ones are counted. */
const MAX_NAMED = 3;

/** The config warning for a claim whose `cel` rule compares caller input with a record value by order, if it does. */
export function orderComparisonWarning(claimId: string, expression: string): string | undefined {
  let parsed: Parsed;
  try {
    parsed = parse(expression);
  } catch {
    return undefined; // Refused as a config issue of its own.
  }
  const found = callerOrderComparisons(parsed);
  if (found.length === 0) return undefined;
  const more = found.length > MAX_NAMED ? `; ${found.length - MAX_NAMED} more` : '';
  return `claim ${claimId} compares caller input with a record value by order (${found.slice(0, MAX_NAMED).join('; ')}${more}): a caller can find the value by repeated evaluations; compare for equality, or limit who may evaluate it (docs/verifier.md, Disclosure)`;
}

/**
 * The ordering comparisons of `parsed` with caller input on one side and a record value on the other, each written
 * back as CEL (or as its operator when that is long), innermost first, without repeats. Never throws: an expression
 * it cannot follow yields what was found so far.
 */
export function callerOrderComparisons(parsed: Parsed): string[] {
  const found = new Set<string>();
  try {
    new KindWalk(parsed, (fragment) => found.add(fragment)).run();
  } catch {
    // A shape of expression not foreseen here: better no warning than a check that stops the config loading.
  }
  return [...found];
}

/** Post-order, with a stack of its own rather than recursion (a left-nested sum may be thousands of levels deep). */
class KindWalk {
  private readonly parsed: Parsed;
  private readonly report: (fragment: string) => void;
  private readonly kinds: number[] = [];
  private readonly pending: Task[] = [];

  constructor(parsed: Parsed, report: (fragment: string) => void) {
    this.parsed = parsed;
    this.report = report;
  }

  run(): void {
    this.pending.push({ step: 'visit', node: this.parsed.expr, locals: new Map() });
    for (let task = this.pending.pop(); task !== undefined; task = this.pending.pop()) {
      if (task.step === 'visit') this.visit(task.node, task.locals);
      else if (task.step === 'none') this.kinds.push(0);
      else if (task.step === 'join') this.join(task.node, task.count);
      else if (task.step === 'loop') this.loop(task.node, task.locals);
      else if (task.step === 'looped') this.looped(task.node, task.locals, task.before);
      else this.kinds.push(task.loop | this.pop());
    }
  }

  private visit(node: CelExpr, locals: Locals): void {
    const leaf = leafKind(node, locals);
    if (leaf !== undefined) {
      this.kinds.push(leaf);
      return;
    }
    const kind = node.exprKind;
    if (kind.case === 'comprehensionExpr') {
      this.pending.push({ step: 'loop', node, locals });
      this.later([kind.value.iterRange, kind.value.accuInit], locals);
      return;
    }
    const children = childrenOf(node);
    this.pending.push({ step: 'join', node, count: children.length });
    this.later(children, locals);
  }

  /** Visits `children` next, first to last (a missing one reads nothing). */
  private later(children: readonly (CelExpr | undefined)[], locals: Locals): void {
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      this.pending.push(child ? { step: 'visit', node: child, locals } : { step: 'none' });
    }
  }

  private join(node: CelExpr, count: number): void {
    const sides = this.kinds.splice(this.kinds.length - count, count);
    let kinds = sides.reduce((all, side) => all | side, 0);
    const kind = node.exprKind;
    if (kind.case === 'callExpr' && !kind.value.target && sides.length === 2) {
      const [left = 0, right = 0] = sides;
      const crossed =
        ((left & CALLER) !== 0 && (right & RECORD) !== 0) ||
        ((left & RECORD) !== 0 && (right & CALLER) !== 0);
      const operator = ORDERING[kind.value.function];
      if (operator !== undefined && (crossed || (kinds & COMBINED) !== 0)) {
        this.report(this.fragment(node, operator));
      }
      // Not a list joined to another (the step of `map` and `filter` appends to the result so).
      const lists = kind.value.args.some((arg) => arg.exprKind.case === 'listExpr');
      if (crossed && ARITHMETIC.has(kind.value.function) && !lists) kinds |= COMBINED;
    }
    this.kinds.push(kinds);
  }

  /** A comprehension's range and start are known: its variables range over the first, the accumulator holds both. */
  private loop(node: CelExpr, locals: Locals): void {
    if (node.exprKind.case !== 'comprehensionExpr') return;
    const loop = node.exprKind.value;
    const start = this.pop();
    const range = this.pop();
    const inner = new Map(locals);
    for (const name of [loop.iterVar, loop.iterVar2]) if (name) inner.set(name, range);
    inner.set(loop.accuVar, range | start);
    this.pending.push({ step: 'looped', node, locals: inner, before: range | start });
    this.later([loop.loopCondition, loop.loopStep], inner);
  }

  /** The loop's parts are known: the result sees the accumulator as the loop left it, and reads all it read. */
  private looped(node: CelExpr, locals: Locals, before: number): void {
    if (node.exprKind.case !== 'comprehensionExpr') return;
    const all = before | this.pop() | this.pop();
    const after = new Map(locals);
    after.set(node.exprKind.value.accuVar, all);
    this.pending.push({ step: 'result', loop: all });
    this.later([node.exprKind.value.result], after);
  }

  private pop(): number {
    return this.kinds.pop() ?? 0;
  }

  private fragment(node: CelExpr, operator: string): string {
    try {
      const text = unparse({ ...this.parsed, expr: node });
      return text.length <= MAX_FRAGMENT ? text : operator;
    } catch {
      return operator;
    }
  }
}

function childrenOf(node: CelExpr): (CelExpr | undefined)[] {
  const kind = node.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      return [kind.value.operand];
    case 'callExpr':
      return [...(kind.value.target ? [kind.value.target] : []), ...kind.value.args];
    case 'listExpr':
      return kind.value.elements;
    case 'structExpr':
      return kind.value.entries.flatMap((entry) => [
        ...(entry.keyKind.case === 'mapKey' ? [entry.keyKind.value] : []),
        entry.value,
      ]);
    default:
      return [];
  }
}

/**
 * The kinds of input a name or a chain of constant accesses on a name reads (`source.p.age`, `ctx.target['id']`,
 * a comprehension variable's members); undefined for any other node, whose children decide.
 */
function leafKind(node: CelExpr, locals: Locals): number | undefined {
  const keys: string[] = [];
  let current = node;
  for (let access = accessOf(current, true); access; access = accessOf(current, true)) {
    keys.unshift(access.key);
    current = access.operand;
  }
  if (current.exprKind.case !== 'identExpr') return undefined;
  const name = current.exprKind.value.name;
  const local = locals.get(name);
  if (local !== undefined) return local;
  const root = rootOf(current, new Set(locals.keys()));
  if (root === 'source') return RECORD;
  if (root === 'claims') return CLAIM_METADATA.has(keys[1] ?? '') ? 0 : RECORD;
  if (root === 'ctx') {
    // The whole of ctx or ctx.target passed on counts as what the caller sent; ctx.today and ctx.purpose do not.
    if (keys.length === 0) return CALLER;
    if (keys[0] !== 'target') return 0;
    return keys.length === 1 || TARGET_INPUTS.has(keys[1] as string) ? CALLER : 0;
  }
  return 0;
}

// Load-time check of what a CEL expression refers to. A name, binding, field or function that does not exist fails
// every evaluation (500 claim.rule_evaluation_failed), so it is refused at startup as a syntax error is.
import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';

type Expr = ReturnType<typeof parse>['expr'];

export interface CelScope {
  /** Binding alias -> the fields its record is bound with (`source.<alias>` holds those only). */
  readonly sources: ReadonlyMap<string, readonly string[]>;
  /** The aliases under `claims`. */
  readonly claims: readonly string[];
}

const ROOTS = new Set(['source', 'claims', 'ctx']);
const CLAIM_MEMBERS = ['value', 'satisfied', 'claim_id', 'version'];
const CTX_MEMBERS = ['purpose', 'today', 'target'];
// Calls the planner handles itself (logic, conditional, index, optional access): not in the function registry.
const PLANNER_CALLS = new Set([
  '_&&_',
  '_||_',
  '_?_:_',
  '_[_]',
  '_[?_]',
  '_?._',
  '@not_strictly_false',
  '__not_strictly_false__',
]);

const env = celEnv();

/** One message per unknown name, binding, field or function, in the order they first appear. */
export function checkCelReferences(expr: Expr, scope: CelScope): string[] {
  const problems = new Set<string>();
  new ReferenceWalk(scope, (message) => problems.add(message)).visit(expr, new Set());
  return [...problems];
}

/** A constant-key access `<operand>.key` or `<operand>['key']`. */
interface Access {
  readonly operand: Expr;
  readonly key: string;
}

class ReferenceWalk {
  private readonly scope: CelScope;
  private readonly report: (message: string) => void;

  constructor(scope: CelScope, report: (message: string) => void) {
    this.scope = scope;
    this.report = report;
  }

  visit(expr: Expr | undefined, locals: ReadonlySet<string>): void {
    if (!expr) return;
    const kind = expr.exprKind;
    switch (kind.case) {
      case 'identExpr':
        this.checkName(kind.value.name, locals);
        return;
      case 'selectExpr':
      case 'callExpr': {
        if (this.checkAccess(expr, locals)) return;
        if (kind.case === 'selectExpr') {
          this.visit(kind.value.operand, locals);
          return;
        }
        const call = kind.value;
        if (!PLANNER_CALLS.has(call.function) && env.funcs.find(call.function) === undefined) {
          this.report(`calls \`${call.function}\`, which is not a CEL function here`);
        }
        this.visit(call.target, locals);
        for (const arg of call.args) this.visit(arg, locals);
        return;
      }
      case 'listExpr':
        for (const element of kind.value.elements) this.visit(element, locals);
        return;
      case 'structExpr':
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') this.visit(entry.keyKind.value, locals);
          this.visit(entry.value, locals);
        }
        return;
      case 'comprehensionExpr': {
        const loop = kind.value;
        this.visit(loop.iterRange, locals);
        this.visit(loop.accuInit, locals);
        const inner = new Set([...locals, loop.iterVar, loop.iterVar2, loop.accuVar].filter(Boolean));
        this.visit(loop.loopCondition, inner);
        this.visit(loop.loopStep, inner);
        this.visit(loop.result, new Set([...locals, loop.accuVar]));
        return;
      }
      default:
        return;
    }
  }

  private checkName(name: string, locals: ReadonlySet<string>): void {
    if (locals.has(name) || ROOTS.has(name) || resolvesAlone(name)) return;
    this.report(`refers to \`${name}\`; the expression sees source, claims and ctx`);
  }

  /**
   * Checks `source.<alias>[.<field>]`, `claims.<alias>[.<member>]`, `ctx.<member>` and qualified type names
   * (`google.protobuf.Timestamp`); true when `expr` was one of them (and is fully checked).
   */
  private checkAccess(expr: Expr, locals: ReadonlySet<string>): boolean {
    const outer = accessOf(expr);
    if (!outer) return false;
    const qualified = qualifiedName(expr);
    if (qualified !== undefined && !locals.has(qualified.root) && !ROOTS.has(qualified.root)) {
      if (resolvesAlone(qualified.name)) return true;
    }
    const direct = rootOf(outer.operand, locals);
    if (direct) {
      this.checkMember(direct, outer.key, undefined);
      return true;
    }
    const inner = accessOf(outer.operand);
    const root = inner ? rootOf(inner.operand, locals) : undefined;
    if (!inner || !root) return false;
    this.checkMember(root, inner.key, outer.key);
    return true;
  }

  private checkMember(root: string, key: string, member: string | undefined): void {
    if (root === 'source') {
      const fields = this.scope.sources.get(key);
      if (!fields) {
        this.report(`reads \`source.${key}\`, but the claim has no source binding \`${key}\``);
      } else if (member !== undefined && !fields.includes(member)) {
        this.report(
          `reads \`source.${key}.${member}\`, but \`${member}\` is not in source_bindings.${key}.fields`,
        );
      }
    } else if (root === 'claims') {
      if (!this.scope.claims.includes(key)) {
        this.report(`reads \`claims.${key}\`, but no dependency is bound as \`${key}\``);
      } else if (member !== undefined && !CLAIM_MEMBERS.includes(member)) {
        this.report(`reads \`claims.${key}.${member}\`; a dependency has ${CLAIM_MEMBERS.join(', ')}`);
      }
    } else if (!CTX_MEMBERS.includes(key)) {
      this.report(`reads \`ctx.${key}\`; ctx has ${CTX_MEMBERS.join(', ')}`);
    }
  }
}

function accessOf(expr: Expr): Access | undefined {
  const kind = expr.exprKind;
  if (kind.case === 'selectExpr' && kind.value.operand && !kind.value.testOnly) {
    return { operand: kind.value.operand, key: kind.value.field };
  }
  if (kind.case === 'callExpr' && kind.value.function === '_[_]' && !kind.value.target) {
    const [operand, index] = kind.value.args;
    const constant = index?.exprKind.case === 'constExpr' ? index.exprKind.value.constantKind : undefined;
    if (operand && index?.exprKind.case === 'constExpr' && constant?.case === 'stringValue') {
      return { operand, key: constant.value };
    }
  }
  return undefined;
}

/** The binding root an access starts from, unless a comprehension variable hides it. */
function rootOf(expr: Expr, locals: ReadonlySet<string>): string | undefined {
  if (expr.exprKind.case !== 'identExpr') return undefined;
  const name = expr.exprKind.value.name;
  return ROOTS.has(name) && !locals.has(name) ? name : undefined;
}

/** `a.b.c` made of plain selections on a name: its text and first name. */
function qualifiedName(expr: Expr): { name: string; root: string } | undefined {
  const parts: string[] = [];
  let current: Expr | undefined = expr;
  while (current?.exprKind.case === 'selectExpr' && !current.exprKind.value.testOnly) {
    parts.unshift(current.exprKind.value.field);
    current = current.exprKind.value.operand;
  }
  if (current?.exprKind.case !== 'identExpr') return undefined;
  const root = current.exprKind.value.name;
  return { name: [root, ...parts].join('.'), root };
}

const resolved = new Map<string, boolean>();

/** True for names CEL knows without any binding: types such as `int` or `google.protobuf.Timestamp`. */
function resolvesAlone(name: string): boolean {
  let known = resolved.get(name);
  if (known === undefined) {
    try {
      known = !isCelError(plan(env, parse(name))({}));
    } catch {
      known = false;
    }
    resolved.set(name, known);
  }
  return known;
}

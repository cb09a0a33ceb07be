// Load-time check of what a CEL expression refers to. A name, binding, field or function that does not exist, or a
// constant regular expression that does not compile, fails every evaluation (500 claim.rule_evaluation_failed), so
// it is refused at startup as a syntax error is.
import { isCelError, parse, plan } from '@bufbuild/cel';
import { createCelEnv } from './cel-env.ts';
import { invalidPattern } from './check-cel-pattern.ts';
import { accessOf, type CelExpr as Expr, walkCel } from './walk-cel.ts';

export interface CelScope {
  /** Binding alias -> the fields its record is bound with (`source.<alias>` holds those only). */
  readonly sources: ReadonlyMap<string, readonly string[]>;
  /** The aliases under `claims`. */
  readonly claims: readonly string[];
}

const ROOTS = new Set(['source', 'claims', 'ctx']);
const CLAIM_MEMBERS = ['value', 'satisfied', 'claim_id', 'version'];
const CTX_MEMBERS = ['purpose', 'today', 'target'];
const TARGET_MEMBERS = ['type', 'id', 'identifiers', 'attributes'];
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

const env = createCelEnv();

/** One message per unknown name, binding, field or function, in the order they first appear. */
export function checkCelReferences(expr: Expr, scope: CelScope): string[] {
  const problems = new Set<string>();
  const references = new ReferenceWalk(scope, (message) => problems.add(message));
  walkCel(expr, new Set(), (node, locals) => references.enter(node, locals));
  return [...problems];
}

class ReferenceWalk {
  private readonly scope: CelScope;
  private readonly report: (message: string) => void;

  constructor(scope: CelScope, report: (message: string) => void) {
    this.scope = scope;
    this.report = report;
  }

  /** Checks a name, an access or a call; true when the node is checked whole (its children need no visit). */
  enter(expr: Expr, locals: ReadonlySet<string>): boolean {
    const kind = expr.exprKind;
    if (kind.case === 'identExpr') {
      this.checkName(kind.value.name, locals);
      return true;
    }
    if (kind.case !== 'selectExpr' && kind.case !== 'callExpr') return false;
    if (this.checkAccess(expr, locals)) return true;
    if (kind.case === 'callExpr') {
      const call = kind.value;
      if (!PLANNER_CALLS.has(call.function) && env.funcs.find(call.function) === undefined) {
        this.report(`calls \`${call.function}\`, which is not a CEL function here`);
      }
      const pattern = invalidPattern(env, expr);
      if (pattern) this.report(pattern);
    }
    return false;
  }

  private checkName(name: string, locals: ReadonlySet<string>): void {
    if (locals.has(name) || ROOTS.has(name) || resolvesAlone(name)) return;
    this.report(`refers to \`${name}\`; the expression sees source, claims and ctx`);
  }

  /**
   * Checks `source.<alias>[.<field>]`, `claims.<alias>[.<member>]`, `ctx.<member>[.<member>]` and qualified type
   * names (`google.protobuf.Timestamp`); true when `expr` was one of them (and is fully checked). A `has()` test is
   * checked as a read: a field the binding does not read is never there, so the test could only be false.
   */
  private checkAccess(expr: Expr, locals: ReadonlySet<string>): boolean {
    const outer = accessOf(expr, true);
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
    } else if (member === undefined) {
      return;
    } else if (key !== 'target') {
      this.report(`reads \`ctx.${key}.${member}\`; ctx.${key} is a string`);
    } else if (!TARGET_MEMBERS.includes(member)) {
      this.report(`reads \`ctx.target.${member}\`; ctx.target has ${TARGET_MEMBERS.join(', ')}`);
    }
  }
}

/** The binding root an access starts from, unless a comprehension variable hides it. */
export function rootOf(expr: Expr, locals: ReadonlySet<string>): string | undefined {
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

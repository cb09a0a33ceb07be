// The request inputs a CEL rule reads: `ctx.target.identifiers.<scheme>` and `ctx.target.attributes.<name>`. A
// request without one of them would fail the rule on every evaluation (a 500 after the source was read), so they are
// required up front like lookup inputs. A member the expression tests with `has(...)`, or reads with optional
// access (`[?'x']`, `.?x`), is optional and not required. (`ctx.target.id` is always there: null when not sent.)
import type { parse } from '@bufbuild/cel';

type Expr = ReturnType<typeof parse>['expr'];

/** Request paths (`target.attributes.income`) the expression needs, sorted. */
export function celTargetInputs(expr: Expr): string[] {
  const read = new Set<string>();
  const tested = new Set<string>();
  visit(expr, new Set(), read, tested);
  return [...read].filter((path) => !tested.has(path)).sort();
}

function visit(
  expr: Expr | undefined,
  locals: ReadonlySet<string>,
  read: Set<string>,
  tested: Set<string>,
): void {
  if (!expr) return;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr': {
      const path = targetPath(expr, locals);
      if (path !== undefined) {
        (kind.value.testOnly ? tested : read).add(path);
        return;
      }
      visit(kind.value.operand, locals, read, tested);
      return;
    }
    case 'callExpr': {
      const path = targetPath(expr, locals);
      if (path !== undefined) {
        read.add(path);
        return;
      }
      visit(kind.value.target, locals, read, tested);
      for (const arg of kind.value.args) visit(arg, locals, read, tested);
      return;
    }
    case 'listExpr':
      for (const element of kind.value.elements) visit(element, locals, read, tested);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value, locals, read, tested);
        visit(entry.value, locals, read, tested);
      }
      return;
    case 'comprehensionExpr': {
      const loop = kind.value;
      const inner = new Set([...locals, loop.iterVar, loop.iterVar2, loop.accuVar].filter(Boolean));
      visit(loop.iterRange, locals, read, tested);
      visit(loop.accuInit, locals, read, tested);
      visit(loop.loopCondition, inner, read, tested);
      visit(loop.loopStep, inner, read, tested);
      visit(loop.result, new Set([...locals, loop.accuVar]), read, tested);
      return;
    }
    default:
      return;
  }
}

/**
 * The request path `expr` reads when it is a constant member of `ctx.target.identifiers` or `ctx.target.attributes`
 * (by `.name` or `['name']`); undefined for anything else.
 */
function targetPath(expr: Expr, locals: ReadonlySet<string>): string | undefined {
  const outer = memberOf(expr);
  if (!outer) return undefined;
  const middle = memberOf(outer.operand);
  if (!middle) return undefined;
  const inner = memberOf(middle.operand);
  if (inner?.key !== 'target' || !isCtx(inner.operand, locals)) return undefined;
  if (middle.key !== 'identifiers' && middle.key !== 'attributes') return undefined;
  return `target.${middle.key}.${outer.key}`;
}

/** `<operand>.key` (a `has()` test included) or `<operand>['key']` with a constant key. */
function memberOf(expr: Expr): { operand: Expr; key: string } | undefined {
  const kind = expr.exprKind;
  if (kind.case === 'selectExpr' && kind.value.operand) {
    return { operand: kind.value.operand, key: kind.value.field };
  }
  if (kind.case === 'callExpr' && kind.value.function === '_[_]' && !kind.value.target) {
    const [operand, index] = kind.value.args;
    const constant = index?.exprKind.case === 'constExpr' ? index.exprKind.value.constantKind : undefined;
    if (operand && constant?.case === 'stringValue') return { operand, key: constant.value };
  }
  return undefined;
}

function isCtx(expr: Expr, locals: ReadonlySet<string>): boolean {
  return expr.exprKind.case === 'identExpr' && expr.exprKind.value.name === 'ctx' && !locals.has('ctx');
}

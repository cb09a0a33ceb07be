// The one walk over a parsed CEL expression, for the load-time checks that read it (names and fields it refers to,
// request inputs it needs): each visits every node with the comprehension variables in scope there.
import type { parse } from '@bufbuild/cel';

export type CelExpr = ReturnType<typeof parse>['expr'];

/**
 * Calls `enter` on `expr` and, unless it returns true (it has dealt with the node whole), on every child, with the
 * names comprehension variables hide in `locals`.
 */
export function walkCel(
  expr: CelExpr | undefined,
  locals: ReadonlySet<string>,
  enter: (expr: CelExpr, locals: ReadonlySet<string>) => boolean,
): void {
  if (!expr || enter(expr, locals)) return;
  const walk = (child: CelExpr | undefined, scope = locals) => walkCel(child, scope, enter);
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      walk(kind.value.operand);
      return;
    case 'callExpr':
      walk(kind.value.target);
      for (const arg of kind.value.args) walk(arg);
      return;
    case 'listExpr':
      for (const element of kind.value.elements) walk(element);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') walk(entry.keyKind.value);
        walk(entry.value);
      }
      return;
    case 'comprehensionExpr': {
      const loop = kind.value;
      walk(loop.iterRange);
      walk(loop.accuInit);
      const inner = new Set([...locals, loop.iterVar, loop.iterVar2, loop.accuVar].filter(Boolean));
      walk(loop.loopCondition, inner);
      walk(loop.loopStep, inner);
      walk(loop.result, new Set([...locals, loop.accuVar]));
      return;
    }
    default:
      return;
  }
}

/** A constant-key access `<operand>.key` or `<operand>['key']`. */
export interface CelAccess {
  readonly operand: CelExpr;
  readonly key: string;
}

/** The access `expr` is, if any; a `has(<operand>.key)` test counts only with `tests`. */
export function accessOf(expr: CelExpr, tests = false): CelAccess | undefined {
  const kind = expr.exprKind;
  if (kind.case === 'selectExpr' && kind.value.operand && (tests || !kind.value.testOnly)) {
    return { operand: kind.value.operand, key: kind.value.field };
  }
  if (kind.case === 'callExpr' && kind.value.function === '_[_]' && !kind.value.target) {
    const [operand, index] = kind.value.args;
    const constant = index?.exprKind.case === 'constExpr' ? index.exprKind.value.constantKind : undefined;
    if (operand && constant?.case === 'stringValue') return { operand, key: constant.value };
  }
  return undefined;
}

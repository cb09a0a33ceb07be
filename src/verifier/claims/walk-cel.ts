// The one walk over a parsed CEL expression, for the load-time checks that read it (names and fields it refers to,
// request inputs it needs): each visits every node with the comprehension variables in scope there.
import type { parse } from '@bufbuild/cel';

export type CelExpr = ReturnType<typeof parse>['expr'];

/**
 * Calls `enter` on `expr` and, unless it returns true (it has dealt with the node whole), on every child, with the
 * names comprehension variables hide in `locals`. Depth first, in source order, with a stack of its own rather than
 * recursion: a left-nested sum within `cel.max_expression_bytes` is thousands of levels deep, beyond the call stack.
 */
export function walkCel(
  expr: CelExpr | undefined,
  locals: ReadonlySet<string>,
  enter: (expr: CelExpr, locals: ReadonlySet<string>) => boolean,
): void {
  const pending: [CelExpr | undefined, ReadonlySet<string>][] = [[expr, locals]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, scope] = next;
    if (!node || enter(node, scope)) continue;
    // Pushed last to first, so that they are visited first to last; one at a time, as a list literal may hold more
    // elements than a call takes arguments.
    const children = childrenOf(node, scope);
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i] as (typeof children)[number]);
  }
}

function childrenOf(
  expr: CelExpr,
  locals: ReadonlySet<string>,
): [CelExpr | undefined, ReadonlySet<string>][] {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      return [[kind.value.operand, locals]];
    case 'callExpr':
      return [kind.value.target, ...kind.value.args].map((child) => [child, locals]);
    case 'listExpr':
      return kind.value.elements.map((element) => [element, locals]);
    case 'structExpr':
      return kind.value.entries.flatMap((entry): [CelExpr | undefined, ReadonlySet<string>][] => [
        ...(entry.keyKind.case === 'mapKey'
          ? [[entry.keyKind.value, locals] as [CelExpr, ReadonlySet<string>]]
          : []),
        [entry.value, locals],
      ]);
    case 'comprehensionExpr': {
      const loop = kind.value;
      const inner = new Set([...locals, loop.iterVar, loop.iterVar2, loop.accuVar].filter(Boolean));
      return [
        [loop.iterRange, locals],
        [loop.accuInit, locals],
        [loop.loopCondition, inner],
        [loop.loopStep, inner],
        [loop.result, new Set([...locals, loop.accuVar])],
      ];
    }
    default:
      return [];
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

// The request inputs a CEL rule reads: `ctx.target.identifiers.<scheme>` and `ctx.target.attributes.<name>`. A
// request without one of them would fail the rule on every evaluation (a 500 after the source was read), so they are
// required up front like lookup inputs. A member the expression tests with `has(...)`, or reads with optional
// access (`[?'x']`, `.?x`), is optional and not required. (`ctx.target.id` is always there: null when not sent.)
import { rootOf } from './check-cel-references.ts';
import { accessOf, type CelExpr, walkCel } from './walk-cel.ts';

/** Request paths (`target.attributes.income`) the expression needs, sorted. */
export function celTargetInputs(expr: CelExpr): string[] {
  const read = new Set<string>();
  const tested = new Set<string>();
  walkCel(expr, new Set(), (node, locals) => {
    const kind = node.exprKind;
    if (kind.case !== 'selectExpr' && kind.case !== 'callExpr') return false;
    const path = targetPath(node, locals);
    if (path === undefined) return false;
    (kind.case === 'selectExpr' && kind.value.testOnly ? tested : read).add(path);
    return true;
  });
  return [...read].filter((path) => !tested.has(path)).sort();
}

/**
 * The request path `expr` reads when it is a constant member of `ctx.target.identifiers` or `ctx.target.attributes`
 * (by `.name` or `['name']`, a `has()` test included); undefined for anything else.
 */
function targetPath(expr: CelExpr, locals: ReadonlySet<string>): string | undefined {
  const outer = accessOf(expr, true);
  if (!outer) return undefined;
  const middle = accessOf(outer.operand, true);
  if (!middle) return undefined;
  const inner = accessOf(middle.operand, true);
  if (inner?.key !== 'target' || rootOf(inner.operand, locals) !== 'ctx') return undefined;
  if (middle.key !== 'identifiers' && middle.key !== 'attributes') return undefined;
  return `target.${middle.key}.${outer.key}`;
}

// Which CEL expressions may run on the request thread rather than in a worker (create-cel-evaluator.ts). A worker
// exists so that an expression can be stopped: a comprehension (`all`, `exists`, `map`, `filter`) over a list can
// take time that grows with a power of its size, and `matches` runs a regular expression. Without them, and with a
// small number of nodes, each node is evaluated at most once and every function allowed here takes time about
// linear in its arguments (themselves bounded by `cel.max_binding_json_bytes` and the request's limits), so the
// evaluation finishes in microseconds; handing it to a thread and back would cost more than running it.
import { parse } from '@bufbuild/cel';
import { walkCel } from './walk-cel.ts';

/**
 * Inputs larger than this (as JSON text; the default `cel.max_binding_json_bytes`) go to a worker even for a bounded
 * expression: its functions are about linear in their arguments, not all exactly (`int()` of a digit string grows
 * faster), and on inputs an operator allowed to be large only a worker's time limit stops it.
 */
export const MAX_INLINE_INPUT_CHARS = 65_536;

/** Nodes at most: a claim's comparison of a few fields is 5 to 30. */
export const MAX_BOUNDED_NODES = 64;

/**
 * Functions (operators included) whose cost is about linear in their arguments. Anything else, `matches` and
 * functions this list does not know included, sends the expression to a worker.
 */
const LINEAR_FUNCTIONS: ReadonlySet<string> = new Set([
  '!_',
  '-_',
  '_&&_',
  '_||_',
  '_?_:_',
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '_[_]',
  '@in',
  'size',
  'contains',
  'startsWith',
  'endsWith',
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'bytes',
  'dyn',
  'type',
  'timestamp',
  'duration',
  'getFullYear',
  'getMonth',
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
]);

/** Whether `expression` parses, has no comprehension, calls only LINEAR_FUNCTIONS and has few enough nodes. */
export function isBoundedCel(expression: string): boolean {
  let root: ReturnType<typeof parse>['expr'];
  try {
    root = parse(expression).expr;
  } catch {
    return false;
  }
  let nodes = 0;
  let bounded = true;
  walkCel(root, new Set(), (node) => {
    nodes++;
    const kind = node.exprKind;
    if (
      nodes > MAX_BOUNDED_NODES ||
      kind.case === 'comprehensionExpr' ||
      (kind.case === 'callExpr' && !LINEAR_FUNCTIONS.has(kind.value.function))
    ) {
      bounded = false;
    }
    // Once unbounded, the rest of the tree need not be walked.
    return !bounded;
  });
  return bounded;
}

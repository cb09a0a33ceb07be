// Load-time check of a constant `matches` pattern: one that does not compile fails every evaluation, and cel-go
// (CEL's reference implementation) refuses it when it builds the program, so it is refused at startup here too.
import { type CelEnv, isCelError, parse, plan } from '@bufbuild/cel';
import type { CelExpr } from './walk-cel.ts';

const compilers = new WeakMap<CelEnv, ReturnType<typeof plan>>();

/**
 * Why the constant pattern of a `matches` call (`s.matches('...')` or `matches(s, '...')`) does not compile, if it
 * does not; undefined for any other call, or a pattern only known when the expression runs. Compiled by the
 * environment's own `matches`, so the check and the evaluation agree on what a pattern is.
 */
export function invalidPattern(env: CelEnv, expr: CelExpr): string | undefined {
  const kind = expr.exprKind;
  if (kind.case !== 'callExpr' || kind.value.function !== 'matches') return undefined;
  const constant = kind.value.args.at(-1)?.exprKind;
  if (constant?.case !== 'constExpr' || constant.value.constantKind.case !== 'stringValue') return undefined;
  const pattern = constant.value.constantKind.value;
  let compile = compilers.get(env);
  if (!compile) {
    compile = plan(env, parse("''.matches(pattern)"));
    compilers.set(env, compile);
  }
  const result = compile({ pattern });
  if (!isCelError(result)) return undefined;
  // Clipped: a pattern may be as long as cel.max_expression_bytes allows.
  const shown = pattern.length > 80 ? `${pattern.slice(0, 80)}...` : pattern;
  return `matches the pattern \`${shown}\`, which is not a valid regular expression: ${result.message.slice(0, 200)}`;
}

// Scope checks: exact string membership, no implication between levels.
import { platformProblem } from '../problem/platform-problems.ts';
import type { Principal } from './principal.ts';

export function requireScope(principal: Principal, scope: string): void {
  if (!principal.scopes.has(scope)) throw platformProblem('auth.scope_denied', `required scope: ${scope}`);
}

// The CEL environment every rule is checked and run in: the library's standard one, with the overloads where
// @bufbuild/cel 0.6 departs from the CEL language definition replaced (cel-time.ts, cel-duration.ts,
// cel-scalars.ts), since a rule written against the definition would otherwise decide differently.
import { type CelEnv, celEnv } from '@bufbuild/cel';
import { durationFuncs } from './cel-duration.ts';
import { scalarFuncs } from './cel-scalars.ts';
import { timeFuncs } from './cel-time.ts';

export function createCelEnv(): CelEnv {
  return celEnv({ funcs: [...timeFuncs, ...durationFuncs, ...scalarFuncs] });
}

// The CEL environment every rule is checked and run in: the library's standard one, with the overloads where
// @bufbuild/cel 0.6 departs from the CEL language definition replaced (cel-time.ts, cel-duration.ts,
// cel-scalars.ts), since a rule written against the definition would otherwise decide differently; and the ones
// that make bytes, which count against the worker's memory (cel-bytes.ts).
import { type CelEnv, celEnv, celMap } from '@bufbuild/cel';
import { bytesFuncs } from './cel-bytes.ts';
import { durationFuncs } from './cel-duration.ts';
import { scalarFuncs } from './cel-scalars.ts';
import { timeFuncs } from './cel-time.ts';

interface MapMembers {
  get(key: unknown): unknown;
  has(key: unknown): boolean;
}

/**
 * @bufbuild/cel 0.6 maps answer `has(key)` with `get(key) != undefined`, so a key whose value is null (a JSON
 * null in a source record, `{'a': null}`) reads as absent to `has(m.a)` and `'a' in m`, where the definition tests
 * for the key. `get` answers undefined only for an absent key, so presence is `!== undefined`. Patched on the
 * class every non-protobuf map shares (inputs and map literals alike), and only while the library has the flaw.
 */
function countNullValuedKeys(): void {
  const probe = celMap(new Map([['k', null]])) as unknown as MapMembers;
  if (probe.has('k')) return;
  const members = Object.getPrototypeOf(probe) as MapMembers;
  members.has = function (this: MapMembers, key: unknown): boolean {
    return this.get(key) !== undefined;
  };
}

countNullValuedKeys();

export function createCelEnv(): CelEnv {
  return celEnv({ funcs: [...timeFuncs, ...durationFuncs, ...scalarFuncs, ...bytesFuncs] });
}

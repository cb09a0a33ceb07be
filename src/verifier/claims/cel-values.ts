// Conversions between JSON values and CEL values: integers become CEL ints, results come back as plain JSON.
import { type CelValue, isCelList, isCelMap, isCelUint } from '@bufbuild/cel';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';

/**
 * JSON as CEL input: whole numbers are CEL `int` (so `age >= 18` compares ints), other numbers `double`. The top
 * level stays an object (the variables); the objects inside become Maps.
 */
export function toCelInput(value: unknown): unknown {
  if (!isJsonObject(value)) return toCelValue(value);
  // fromEntries defines properties: a variable named `__proto__` stays a plain field.
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, toCelValue(entry)]));
}

function toCelValue(value: unknown): unknown {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map(toCelValue);
  // A Map, not an object: the library reads an object's `constructor` and `$typeName` to tell a map from a
  // message, so a request attribute or record field of either name failed the rule.
  if (isJsonObject(value))
    return new Map(Object.entries(value).map(([key, entry]) => [key, toCelValue(entry)]));
  return value;
}

/**
 * Makes the `value` of each of `aliases` in the `claims` input (as toCelInput made it) a double when it became an
 * int: a whole number whose claim declares `number`.
 */
export function claimValuesAsDoubles(claims: unknown, aliases: readonly string[]): void {
  if (!(claims instanceof Map)) return;
  for (const alias of aliases) {
    const claim: unknown = claims.get(alias);
    if (claim instanceof Map && typeof claim.get('value') === 'bigint')
      claim.set('value', Number(claim.get('value')));
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class CelResultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelResultError';
  }
}

/**
 * A CEL result as JSON; ints outside the safe integer range, bytes, types, messages and `__proto__` map keys are
 * refused.
 */
export function fromCelValue(value: CelValue | unknown): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CelResultError('the result is not a finite number');
    return value;
  }
  if (typeof value === 'bigint') return safeInteger(value);
  if (isCelUint(value)) return safeInteger((value as unknown as { value: bigint }).value);
  if (isCelList(value)) return [...value].map(fromCelValue);
  if (isCelMap(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of value) {
      if (typeof key !== 'string') throw new CelResultError('a result map key is not a string');
      // Kept here as a member of its own, but a reader copying members by assignment (the `jsonld` expansion of a
      // CCCEV answer among them) drops it: the value stated would not be the one evaluated.
      if (key === '__proto__') throw new CelResultError('a result map key is `__proto__`');
      Object.defineProperty(out, key, { value: fromCelValue(entry), enumerable: true, writable: true });
    }
    return out;
  }
  // A timestamp (`timestamp(...)` and its arithmetic) comes out as a reflected protobuf message.
  const message = isReflectMessage(value) ? value.message : value;
  const typeName = (message as { $typeName?: unknown } | undefined)?.$typeName;
  if (typeName === 'google.protobuf.Timestamp')
    return timestampText(message as { seconds: bigint; nanos: number });
  throw new CelResultError(`the result type is not supported (${typeName ?? typeof value})`);
}

function safeInteger(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new CelResultError('the result integer is outside the JSON-safe range');
  }
  return Number(value);
}

function timestampText(timestamp: { seconds: bigint; nanos: number }): string {
  const ms = Number(timestamp.seconds) * 1000 + Math.floor(timestamp.nanos / 1_000_000);
  return new Date(ms).toISOString();
}

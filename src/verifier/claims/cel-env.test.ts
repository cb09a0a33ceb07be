import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isCelError, parse, plan } from '@bufbuild/cel';
import { createCelEnv } from './cel-env.ts';
import { fromCelValue, toCelInput } from './cel-values.ts';

const env = createCelEnv();

function evaluate(expression: string, bindings: Record<string, unknown> = {}): unknown {
  const result = plan(env, parse(expression))(toCelInput(bindings) as Record<string, never>);
  if (isCelError(result)) return { error: result.message };
  return fromCelValue(result);
}

function assertError(expression: string, bindings?: Record<string, unknown>): void {
  const result = evaluate(expression, bindings);
  assert.ok(typeof result === 'object' && result !== null && 'error' in result, `${expression}: ${result}`);
}

describe('CEL environment: behaviour of the CEL language definition', () => {
  // A zone with daylight saving, so that anything read through the host's time zone shows.
  const hostZone = process.env.TZ;
  before(() => {
    process.env.TZ = 'America/New_York';
  });
  after(() => {
    if (hostZone === undefined) delete process.env.TZ;
    else process.env.TZ = hostZone;
  });

  it('reads timestamp fields in UTC or the given zone, whatever the host time zone', () => {
    const cases: Array<[string, number]> = [
      ["timestamp('2024-07-01T00:30:00Z').getDayOfYear()", 182],
      ["timestamp('2024-03-10T02:30:00Z').getHours()", 2],
      ["timestamp('2024-03-10T02:30:00Z').getHours('UTC')", 2],
      ["timestamp('2024-03-31T01:30:00Z').getHours('Europe/Paris')", 3],
      ["timestamp('2024-10-27T00:30:00Z').getHours('Europe/Paris')", 2],
      ["timestamp('2024-07-01T00:30:00Z').getDayOfYear('+01:00')", 182],
      ["timestamp('0050-06-15T00:00:00Z').getFullYear()", 50],
      ["timestamp('0001-01-01T00:00:00Z').getFullYear('-01:00')", 0],
      ["timestamp('2009-02-13T23:31:30Z').getDate('Australia/Sydney')", 14],
      ["timestamp('2009-02-13T02:00:00Z').getDayOfMonth('-02:30')", 11],
      ["timestamp('2009-02-13T23:31:30Z').getMinutes('Asia/Kathmandu')", 16],
      ["timestamp('2009-02-13T23:31:30Z').getHours('02:00')", 1],
      ["timestamp('2009-02-13T23:31:20.123456789Z').getMilliseconds()", 123],
      ["timestamp('2009-02-13T23:31:30Z').getDayOfWeek()", 5],
      ["timestamp('2009-02-13T23:31:30Z').getMonth()", 1],
    ];
    for (const [expression, expected] of cases) assert.equal(evaluate(expression), expected, expression);
    assertError("timestamp('2024-01-01T00:00:00Z').getHours('Mars/Olympus')");
  });

  it('refuses timestamps that name no real date or time', () => {
    assert.equal(evaluate("timestamp('2024-02-29T23:00:00-01:00')"), '2024-03-01T00:00:00.000Z');
    assert.equal(evaluate("int(timestamp('1970-01-01T00:00:00.5+00:00'))"), 0);
    for (const text of ['2023-02-29T00:00:00Z', '2024-04-31T00:00:00Z', '2024-01-01T24:00:00Z']) {
      assertError(`timestamp('${text}')`);
    }
    assertError("timestamp('0001-01-01T00:00:00+01:00')");
  });

  it('parses durations, refusing an empty one', () => {
    assert.equal(
      evaluate("duration('1h30m') == duration('5400s') && duration('-0') == duration('0s')"),
      true,
    );
    assert.equal(evaluate("duration('2h45m10.5s').getSeconds()"), 9910);
    for (const text of ['', '-', '1', '1d', ' 1s', '9223372037s']) assertError(`duration('${text}')`);
  });

  it('converts strings to numbers only when they are decimal numbers', () => {
    assert.equal(evaluate("int('-42') + int('+1')"), -41);
    assert.equal(evaluate("double('2.5e1')"), 25);
    assert.equal(evaluate("double('-inf') < 0.0 && double('Infinity') > 0.0"), true);
    assert.equal(evaluate("uint('7') == 7u"), true);
    for (const text of ['', ' 12', '12 ', '0x10', '0b1', '1e3', '1_000']) {
      assertError(`int('${text}')`);
      assertError(`uint('${text}')`);
    }
    for (const text of ['', ' 1.5', 'abc', '0x10', '1e400', '.']) assertError(`double('${text}')`);
    assertError("int('9223372036854775808')");
    assertError("uint('-1')");
  });

  it('fails the one int remainder that overflows, as division does', () => {
    assert.equal(evaluate('-7 % 3'), -1);
    assert.equal(evaluate('-9223372036854775807 % -1'), 0);
    assertError('(-9223372036854775807 - 1) % -1');
    assertError('(-9223372036854775807 - 1) / -1');
    assertError('5 % 0');
  });

  it('counts a map key whose value is null as present, for has() and in', () => {
    const m = { a: null, b: 1 };
    assert.equal(evaluate('has(m.a) && has(m.b) && !has(m.z)', { m }), true);
    assert.equal(evaluate("'a' in m && !('z' in m) && m.all(k, k in m)", { m }), true);
    assert.equal(evaluate("'a' in {'a': null} && has({'a': null}.a)"), true);
    assert.equal(evaluate("{'a': null} == {'b': null}"), false);
    assert.equal(evaluate('{1: null}[1u] == null && 1.0 in {1: null}'), true);
  });

  it('orders strings by code point', () => {
    assert.equal(evaluate("'\\U0001F600' > '\\uFFFF'"), true);
    assert.equal(evaluate("'\\uFFFF' <= '\\U0001F600'"), true);
    assert.equal(evaluate('s < t', { s: '\u{20000}', t: '\uff21' }), false);
    assert.equal(evaluate("'abc' < 'abd' && 'ab' < 'abc' && 'Z' < 'a' && !('b' >= 'c')"), true);
  });
});

// Exact DECIMAL text and floored sub-millisecond timestamps, as read-parquet gives them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runToEnd } from '../../../test/helpers/run-to-end.ts';
import { decimalText } from '../store/decimal-text.ts';
import { EXACT_PARSERS, unscaledOf } from './parquet-cells.ts';

describe('decimalText', () => {
  it('writes the decimal exactly, without trailing fractional zeros', () => {
    const cases: [bigint, number, string][] = [
      [57n, 2, '0.57'],
      [-57n, 2, '-0.57'],
      [-5n, 2, '-0.05'],
      [500n, 2, '5'],
      [-500n, 2, '-5'],
      [510n, 2, '5.1'],
      [0n, 4, '0'],
      [1n, 4, '0.0001'],
      [12345678901234567890123n, 4, '1234567890123456789.0123'],
      [-(10n ** 38n - 1n), 38, '-0.99999999999999999999999999999999999999'],
      [42n, 0, '42'],
      [-42n, 0, '-42'],
      [42n, -3, '42000'],
      [0n, -3, '0'],
    ];
    for (const [unscaled, scale, text] of cases)
      assert.equal(decimalText(unscaled, scale), text, `${unscaled}e-${scale}`);
  });

  it('gives text whose Number is the double nearest the decimal', () => {
    assert.equal(Number(decimalText(57n, 2)), 0.57);
    assert.equal(Number(decimalText(-57n, 2)), -0.57);
    assert.equal(Number(decimalText(1n, 4)), 0.0001);
  });

  it('writes a long run of fractional zeros before a digit in one pass', () => {
    // A file declares the scale: 400,000 makes `1` a fraction of 399,999 zeros and a 1. In a process of its own,
    // stopped after 20 s: stripping trailing zeros once scanned the zero run from each of its zeros (about 50 s
    // here, 3 s per cell at 100,000). A guard, not a timing.
    const script = `import { decimalText } from ${JSON.stringify(new URL('../store/decimal-text.ts', import.meta.url).href)};
      const texts = [decimalText(1n, 400_000), decimalText(-(10n ** 5n), 400_005), decimalText(10n ** 400_000n, 400_000)];
      process.stdout.write(JSON.stringify(texts.map((text) => [text.length, text.slice(0, 4), text.slice(-2)])));`;
    assert.equal(runToEnd(script), '[[400002,"0.00","01"],[400003,"-0.0","01"],[1,"1","1"]]');
  });
});

describe('unscaledOf', () => {
  it('reads INT32, INT64 and big-endian two’s complement bytes', () => {
    assert.equal(unscaledOf(-57), -57n);
    assert.equal(unscaledOf(2n ** 62n), 2n ** 62n);
    assert.equal(unscaledOf(Uint8Array.of(0xff, 0xc7)), -57n);
    assert.equal(unscaledOf(Uint8Array.of(0x00, 0xc7)), 199n);
    assert.equal(unscaledOf(Uint8Array.of(0x80, 0, 0, 0, 0, 0, 0, 0, 0)), -(2n ** 71n));
    assert.equal(unscaledOf(new Uint8Array(0)), 0n);
    assert.equal(unscaledOf(undefined), null);
    assert.equal(unscaledOf(null), null);
  });
});

describe('EXACT_PARSERS', () => {
  it('floors micro- and nanoseconds toward negative infinity', () => {
    const micros = EXACT_PARSERS.timestampFromMicroseconds;
    const nanos = EXACT_PARSERS.timestampFromNanoseconds;
    assert.equal(micros(-1500n).getTime(), -2);
    assert.equal(micros(-1000n).getTime(), -1);
    assert.equal(micros(-1n).getTime(), -1);
    assert.equal(micros(1999n).getTime(), 1);
    assert.equal(micros(0n).getTime(), 0);
    assert.equal(nanos(-1_500_000n).getTime(), -2);
    assert.equal(nanos(-1n).getTime(), -1);
    assert.equal(nanos(1_999_999n).getTime(), 1);
  });
});

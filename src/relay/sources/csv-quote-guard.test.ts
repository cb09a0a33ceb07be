// The check of closing quotes on the way to the CSV parser, fed whole and cut at every byte.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvQuoteGuard } from './csv-quote-guard.ts';

/** The offset the guard refuses `text` at (undefined when it passes), fed in the chunks cut at `cuts`. */
async function refusedAt(
  text: string,
  cuts: readonly number[] = [],
  quote = '"',
  delimiter = ',',
): Promise<number | undefined> {
  const bytes = Buffer.from(text);
  const guard = csvQuoteGuard(quote, delimiter, async (offset) =>
    Object.assign(new Error('refused'), { offset }),
  );
  const passed: Buffer[] = [];
  guard.on('data', (chunk: Buffer) => passed.push(chunk));
  const ends = [0, ...cuts, bytes.length];
  try {
    await new Promise<void>((resolve, reject) => {
      guard.on('error', reject);
      guard.on('end', resolve);
      for (let i = 1; i < ends.length; i++) guard.write(bytes.subarray(ends[i - 1], ends[i]));
      guard.end();
    });
  } catch (error) {
    return (error as { offset: number }).offset;
  }
  assert.deepEqual(Buffer.concat(passed), bytes, 'the bytes pass unchanged');
  return undefined;
}

/** The same answer fed whole and cut anywhere in two or three chunks. */
async function sameCutAnywhere(
  text: string,
  quote?: string,
  delimiter?: string,
): Promise<number | undefined> {
  const whole = await refusedAt(text, [], quote, delimiter);
  const length = Buffer.byteLength(text);
  for (let a = 1; a < length; a++) {
    assert.equal(await refusedAt(text, [a], quote, delimiter), whole, `cut at ${a}`);
    if (a + 1 < length)
      assert.equal(await refusedAt(text, [a, a + 1], quote, delimiter), whole, `cut at ${a}, ${a + 1}`);
  }
  return whole;
}

describe('csvQuoteGuard', () => {
  it('passes quoted fields closed by a delimiter, a line end or the end of the file, and doubled quotes', async () => {
    for (const text of [
      '\uFEFF"id","name"\r\n1,"a ""b"", c"\r\n',
      'id,name\n1,"multi\nline"\r2,""\n3,""""\n4,"x"',
      'id,name\n1,12" pipe\n2, "spaced"\n3,a"b"c\n',
      'id,name\n1,""""""""\n',
    ]) {
      assert.equal(await sameCutAnywhere(text), undefined, JSON.stringify(text));
    }
  });

  it('refuses text after a closing quote, giving the offset of that quote', async () => {
    const cases: [string, number][] = [
      ['id,name\n1,"a"b\n', 12],
      ['id,name\n1,"a,b"c,d\n', 14],
      ['id,name\n1,"a" \n', 12],
      ['"id"x,name\n', 3],
      ['\uFEFF"id"x,name\n', 6],
      ['id,name\n1,"a""b"c\n', 15],
    ];
    for (const [text, offset] of cases)
      assert.equal(await sameCutAnywhere(text), offset, JSON.stringify(text));
  });

  it('takes the configured quote and delimiter, of several UTF-8 bytes too', async () => {
    assert.equal(await sameCutAnywhere("id;name\n1;'a;b'\n2;it's\n", "'", ';'), undefined);
    assert.equal(await sameCutAnywhere("id;name\n1;'a'b\n", "'", ';'), 12);
    assert.equal(await sameCutAnywhere('id§name\n1§«a§««b«§é\n', '«', '§'), undefined);
    assert.equal(await sameCutAnywhere('id§name\n1§«a«é\n', '«', '§'), 15);
    // A two-byte quote followed by a one-byte character at the end of a chunk.
    assert.equal(await sameCutAnywhere('id,name\n1,«a«\n2,«b«x', '«', ','), 21);
  });
});

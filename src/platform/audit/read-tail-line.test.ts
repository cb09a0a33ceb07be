import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { makeTempDir } from './audit-test-support.ts';
import { readTailLine } from './read-tail-line.ts';

describe('readTailLine', () => {
  it('reports missing and empty files as empty', (t) => {
    const dir = makeTempDir(t);
    assert.deepEqual(readTailLine(join(dir, 'missing')), { kind: 'empty' });
    writeFileSync(join(dir, 'zero'), '');
    assert.deepEqual(readTailLine(join(dir, 'zero')), { kind: 'empty' });
  });

  it('returns the last complete line', (t) => {
    const path = join(makeTempDir(t), 'f');
    const cases: [string, string][] = [
      ['a\nb\n', 'b'],
      ['only\n', 'only'],
      ['\n', ''],
      ['a\n\n', ''],
      ['x\nnaïve ü€\n', 'naïve ü€'],
    ];
    for (const [content, line] of cases) {
      writeFileSync(path, content);
      assert.deepEqual(readTailLine(path), { kind: 'line', line }, JSON.stringify(content));
    }
  });

  it('flags a file that does not end with a newline', (t) => {
    const path = join(makeTempDir(t), 'f');
    writeFileSync(path, 'a\nhalf a li');
    assert.deepEqual(readTailLine(path), { kind: 'unterminated' });
  });

  it('grows the window for lines longer than it, across multi-byte characters', (t) => {
    const path = join(makeTempDir(t), 'f');
    const long = `${'€'.repeat(30_000)}end`;
    writeFileSync(path, `first\n${long}\n`);
    assert.deepEqual(readTailLine(path), { kind: 'line', line: long });
    writeFileSync(path, `${long}\n`);
    assert.deepEqual(readTailLine(path), { kind: 'line', line: long });
  });
});

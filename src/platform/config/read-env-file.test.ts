import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runToEnd } from '../../../test/helpers/run-to-end.ts';
import { ConfigError } from './config-error.ts';
import { readEnvFile } from './read-env-file.ts';

function writeEnvFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'ambit-env-file-')), 'relay.env');
  writeFileSync(file, text);
  return file;
}

function readError(file: string): ConfigError {
  try {
    readEnvFile(file);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  assert.fail('expected the env file to be refused');
}

describe('--env-file parsing', () => {
  it('strips an inline comment in one pass, whatever runs of blanks the value holds', () => {
    // In a process of its own, stopped after 20 s: the comment pattern once scanned a blank run from each of its
    // blanks (quadratic: minutes for a value near the file limit). A guard, not a timing.
    const script = `import { parseEnvFile } from ${JSON.stringify(new URL('./read-env-file.ts', import.meta.url).href)};
      const blanks = ' '.repeat(400_000);
      const values = parseEnvFile('A=x' + blanks + 'y#z\\nB=z' + blanks + '# note\\n');
      process.stdout.write(JSON.stringify([values.A.length, values.B]));`;
    assert.equal(runToEnd(script), '[400004,"z"]');
  });

  it('reads comments, `export `, quotes, inline comments and CRLF line ends', () => {
    const text = [
      '# a comment',
      'export A=1',
      'B = two words # note',
      'C="quoted # kept" # note',
      "D='single'",
      'E=x#y',
      'F=',
      'A=last wins',
      '',
    ].join('\r\n');
    assert.deepEqual(readEnvFile(writeEnvFile(text)), {
      A: 'last wins',
      B: 'two words',
      C: 'quoted # kept',
      D: 'single',
      E: 'x#y',
      F: '',
    });
  });

  it('refuses lines that are not KEY=VALUE instead of skipping them, by line and without their text', () => {
    const secret = 'postgres://relay:Hunter2PasswordQQ@db/registry';
    const file = writeEnvFile(`GOOD=1\nDATABASE-URL=${secret}\nDATABASE_URL: ${secret}\n${secret}\n`);
    const error = readError(file);
    assert.deepEqual(
      error.issues.map((issue) => issue.code),
      ['config.env_file_unreadable', 'config.env_file_unreadable', 'config.env_file_unreadable'],
    );
    assert.deepEqual(
      error.issues.map((issue) => /line (\d+)/.exec(issue.message)?.[1]),
      ['2', '3', '4'],
    );
    assert.match(error.issues[0]?.message ?? '', /not a KEY=VALUE line/);
    assert.ok(error.issues.every((issue) => issue.message.includes(file)));
    assert.ok(!error.message.includes('Hunter2'), 'a line is quoted');
  });

  it('refuses a quoted value without its closing quote, rather than keeping the quote in the value', () => {
    const error = readError(writeEnvFile('TOKEN="s3cr3t-value\nNEXT=1\n'));
    assert.equal(error.issues.length, 1);
    assert.match(error.issues[0]?.message ?? '', /line 1: .*no closing quote/);
    assert.ok(!error.message.includes('s3cr3t'), 'the value is quoted');
  });

  it('refuses a file that is not UTF-8 rather than replacing the bytes of a secret', () => {
    const file = writeEnvFile('');
    writeFileSync(
      file,
      Buffer.concat([Buffer.from('A=1\nPASSWORD=caf'), Buffer.from([0xe9]), Buffer.from('\n')]),
    );
    const error = readError(file);
    assert.equal(error.issues.length, 1);
    assert.match(error.issues[0]?.message ?? '', /line 2: .*not UTF-8/);
  });

  it('reports a missing file as unreadable', () => {
    const error = readError(join(tmpdir(), 'ambit-no-such-dir', 'none.env'));
    assert.deepEqual(
      error.issues.map((issue) => issue.code),
      ['config.env_file_unreadable'],
    );
    assert.match(error.issues[0]?.message ?? '', /none\.env/);
  });
});

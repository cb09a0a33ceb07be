import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { makeTempDir } from '../audit-test-support.ts';
import { isDeferredSink } from './audit-sink.ts';
import { createJsonlSink } from './jsonl-sink.ts';
import { createStdoutSink, handStdoutAuditTo, openStdoutSink } from './stdout-sink.ts';

describe('jsonl sink', () => {
  it('creates parent folders and appends to existing content', async (t) => {
    const path = join(makeTempDir(t), 'a', 'b', 'audit.jsonl');
    const first = createJsonlSink(path);
    first.append('{"n":1}\n');
    await first.close();
    const second = createJsonlSink(path);
    second.append('{"n":2}\n');
    await second.close();
    assert.equal(readFileSync(path, 'utf8'), '{"n":1}\n{"n":2}\n');
    assert.throws(() => second.append('{"n":3}\n'), /closed/);
  });

  it('opens the path again, folders included, when the file or its folder was removed', async (t) => {
    const dir = join(makeTempDir(t), 'audit');
    const path = join(dir, 'audit.jsonl');
    const sink = createJsonlSink(path);
    sink.append('{"n":1}\n');
    rmSync(dir, { recursive: true });
    sink.append('{"n":2}\n');
    sink.append('{"n":3}\n');
    await sink.close();
    assert.equal(readFileSync(path, 'utf8'), '{"n":2}\n{"n":3}\n');
  });

  it('cuts a failed write off again without padding a file another tool truncated in place', async (t) => {
    // A real short write: the file-size limit (1 KiB) lets the kernel write part of the line, then EFBIG.
    const path = join(makeTempDir(t), 'audit.jsonl');
    writeFileSync(path, `${'x'.repeat(599)}\n`);
    const script = [
      `import { truncateSync } from 'node:fs';`,
      `import { createJsonlSink } from ${JSON.stringify(new URL('./jsonl-sink.ts', import.meta.url).href)};`,
      `const sink = createJsonlSink(${JSON.stringify(path)});`,
      `truncateSync(${JSON.stringify(path)}, 0);`,
      `try { sink.append('y'.repeat(1999) + '\\n'); } catch (error) { console.log(error.code); }`,
      `sink.append('{"n":1}\\n');`,
      `await sink.close();`,
    ].join('\n');
    const child = spawnSync(
      'bash',
      ['-c', 'ulimit -f 1 && exec "$0" --import tsx --input-type=module -e "$1"', process.execPath, script],
      { encoding: 'utf8' },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'EFBIG');
    // Neither the cut line nor zeros up to the size the file had before it was truncated.
    assert.equal(readFileSync(path, 'utf8'), '{"n":1}\n');
  });

  it('throws when the write fails (full device)', async () => {
    const sink = createJsonlSink('/dev/full');
    assert.throws(() => sink.append('{"n":1}\n'), { code: 'ENOSPC' });
    await sink.close();
  });
});

describe('stdout sink', () => {
  it('writes each line and a newline to the descriptor and leaves the descriptor open on close', async (t) => {
    const path = join(makeTempDir(t), 'out.txt');
    const fd = openSync(path, 'w');
    t.after(() => closeSync(fd));
    const sink = createStdoutSink(fd);
    sink.append('{"a":1}\n');
    sink.append('{"b":"é"}\n');
    await sink.close();
    assert.throws(() => sink.append('{}\n'), /closed/);
    writeSync(fd, 'still open\n');
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n{"b":"é"}\nstill open\n');
  });

  it('throws when the descriptor cannot be written', (t) => {
    const fd = openSync('/dev/full', 'w');
    t.after(() => closeSync(fd));
    const sink = createStdoutSink(fd);
    assert.throws(() => sink.append('{}\n'), { code: 'ENOSPC' });
  });

  it('is standard output itself unless this process handed it to another (a relay worker, to its primary)', async () => {
    const handed = {
      deferred: true as const,
      answerTimeoutMs: 1,
      append: () => {},
      close: async () => {},
    };
    assert.equal(isDeferredSink(openStdoutSink()), false);
    const restore = handStdoutAuditTo(() => handed);
    try {
      assert.equal(openStdoutSink(), handed);
    } finally {
      restore();
    }
    assert.equal(isDeferredSink(openStdoutSink()), false);
  });
});

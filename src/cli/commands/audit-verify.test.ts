// `ambit audit verify` on real files: its exit status and what it says for each kind of damage an audit file can
// suffer (a file is an operator's only evidence, so a success must never stand for "nothing was checked").
import assert from 'node:assert/strict';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { makeTempDir, recordingLogger, sequenceRandom } from '../../platform/audit/audit-test-support.ts';
import { createAuditWriter } from '../../platform/audit/create-audit-writer.ts';
import { systemClock } from '../../platform/clock.ts';
import type { CliIo } from '../cli-io.ts';
import { auditVerify } from './audit-verify.ts';

const SECRET = 'audit-verify-test-secret-0123456789abcdef';

async function verify(file: string, ...flags: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    env: { S: SECRET },
    cwd: process.cwd(),
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  };
  const code = await auditVerify(['--file', file, '--secret-env', 'S', ...flags], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A chain of `count` records spread over `<path>.N` … `<path>.1` and `<path>` by a rotating file sink. */
async function writeRotated(path: string, count: number): Promise<string[]> {
  const writer = createAuditWriter({
    sink: 'file',
    path,
    // Two records (about 330 bytes each) per file.
    rotate: { max_size_mb: 700 / (1024 * 1024), max_files: 100 },
    secret: Buffer.from(SECRET),
    writePolicy: 'fail_closed',
    clock: systemClock,
    random: sequenceRandom(),
    logger: recordingLogger().logger,
  });
  for (let n = 1; n <= count; n++) writer.write({ n, pad: 'x'.repeat(60) });
  await writer.close();
  const files = [3, 2, 1].map((index) => `${path}.${index}`).concat(path);
  assert.deepEqual(
    files.map((file) => readFileSync(file, 'utf8').split('\n').length - 1),
    [2, 2, 2, 2],
  );
  return files;
}

describe('ambit audit verify', () => {
  it('exits 1 on a file holding no record, whatever start it is asked to require', async (t) => {
    const dir = makeTempDir(t);
    const empty = join(dir, 'audit.jsonl');
    writeFileSync(empty, '');
    for (const flags of [[], ['--genesis'], ['--anchor', 'a'.repeat(64)], ['--rotated']]) {
      const result = await verify(empty, ...flags);
      assert.equal(result.code, 1, `${flags.join(' ')}: ${result.out}`);
      assert.equal(result.out, '');
      assert.match(result.err, /no audit record/);
    }
    // Rotated files emptied along with the current one verify nothing either.
    const files = await writeRotated(join(dir, 'rotated.jsonl'), 8);
    for (const file of files) writeFileSync(file, '');
    const emptied = await verify(join(dir, 'rotated.jsonl'), '--rotated');
    assert.equal(emptied.code, 1, emptied.out);
    assert.match(emptied.err, /no audit record/);
  });

  it('never prints a secret given to --secret-env instead of its variable name', async () => {
    // Letters and digits only, as `openssl rand -hex 32` output often is: it passes for a variable name.
    const hex = 'f3a9c1d2e4b5a6978877665544332211aabbccddeeff00112233';
    const err: string[] = [];
    const io: CliIo = { env: { H: hex }, cwd: process.cwd(), out: () => {}, err: (line) => err.push(line) };
    // The shell expanded "$H": the flag holds the secret itself.
    const expanded = await auditVerify(['--file', 'audit.jsonl', '--secret-env', hex], io);
    assert.equal(expanded, 2);
    assert.ok(!err.join('\n').includes(hex), err.join('\n'));
    assert.match(err.join('\n'), /the value of H .*write the variable's name \(H\)/);
    // A secret pasted as is, not in the environment: not a variable name, and not repeated either.
    err.length = 0;
    const pasted = 'pasted-secret-with-dashes-0123456789';
    assert.equal(await auditVerify(['--file', 'audit.jsonl', '--secret-env', pasted], io), 2);
    assert.ok(!err.join('\n').includes(pasted), err.join('\n'));
    assert.match(err.join('\n'), /--secret-env takes the name of an environment variable/);
  });

  it('says a secret shorter than any service accepts is too short, not that the file was tampered with', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    await writeRotated(path, 8);
    const err: string[] = [];
    const short = 'only-twenty-bytes-01';
    const io: CliIo = { env: { S: short }, cwd: process.cwd(), out: () => {}, err: (line) => err.push(line) };
    assert.equal(await auditVerify(['--file', path, '--secret-env', 'S'], io), 2);
    assert.match(
      err.join('\n'),
      /S \(named by --secret-env\) holds 20 bytes: audit secrets hold at least 32/,
    );
    assert.ok(!err.join('\n').includes(short));
  });

  it('counts one record in the singular', async (t) => {
    const path = join(makeTempDir(t), 'one.jsonl');
    const writer = createAuditWriter({
      sink: 'file',
      path,
      secret: Buffer.from(SECRET),
      writePolicy: 'fail_closed',
      clock: systemClock,
      random: sequenceRandom(),
      logger: recordingLogger().logger,
    });
    writer.write({ n: 1 });
    await writer.close();
    const one = await verify(path, '--genesis');
    assert.deepEqual(
      [one.code, one.out.split('\n')[0]],
      [0, 'ok: 1 record verified, from the start of the chain'],
    );
  });

  it('exits 0 on an intact rotated chain and 1 on each kind of damage', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    const files = await writeRotated(path, 8);
    const [oldest, second, newest, current] = files as [string, string, string, string];
    const intact = await verify(path, '--rotated', '--genesis');
    assert.deepEqual(
      [intact.code, intact.out.split('\n')[0]],
      [0, 'ok: 8 records verified, from the start of the chain'],
    );
    // The last record is the current file's, not the last rotated one's.
    const lastLine = readFileSync(current, 'utf8').trimEnd().split('\n').at(-1) as string;
    assert.match(intact.out, new RegExp(`\nlast record_hash ${JSON.parse(lastLine).record_hash} `));

    const saved = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));
    const restore = () => {
      for (const [file, text] of saved) writeFileSync(file, text);
    };
    const linesOf = (file: string) => (saved.get(file) as string).split('\n').slice(0, -1);
    const write = (file: string, lines: string[]) =>
      writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
    const [first, next] = linesOf(second) as [string, string];
    const damage: [string, () => void][] = [
      ['a changed field', () => write(second, [first.replace('"n":3', '"n":4'), next])],
      ['a removed line', () => write(second, [next])],
      ['a reordered pair', () => write(second, [next, first])],
      ['a duplicated line', () => write(second, [first, first, next])],
      ['a truncated last line', () => writeFileSync(current, (saved.get(current) as string).slice(0, -9))],
      [
        'a swapped rotated file',
        () => {
          renameSync(second, join(dir, 'swap'));
          renameSync(newest, second);
          renameSync(join(dir, 'swap'), newest);
        },
      ],
      ['a removed rotated file', () => rmSync(second)],
      [
        'a record moved to another file',
        () => {
          write(second, [first]);
          write(oldest, [...linesOf(oldest), next]);
        },
      ],
    ];
    for (const [what, apply] of damage) {
      apply();
      const result = await verify(path, '--rotated');
      assert.equal(result.code, 1, `${what}: ${result.out}`);
      assert.match(result.err, /^chain broken in /, what);
      restore();
    }
    assert.equal((await verify(path, '--rotated', '--genesis')).code, 0);
  });

  it('--anchor takes a last record_hash printed before: the file grown since verifies, one cut back before it does not', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const writeMore = async (from: number, count: number) => {
      // A new writer resumes the chain from the file's last record, as a restarted service does.
      const writer = createAuditWriter({
        sink: 'jsonl',
        path,
        secret: Buffer.from(SECRET),
        writePolicy: 'fail_closed',
        clock: systemClock,
        random: sequenceRandom(),
        logger: recordingLogger().logger,
      });
      for (let n = from; n < from + count; n++) writer.write({ n });
      await writer.close();
    };
    const lastHashOf = (out: string) => /^last record_hash ([0-9a-f]{64}) /m.exec(out)?.[1] as string;
    await writeMore(1, 5);
    const noted = lastHashOf((await verify(path)).out);
    await writeMore(6, 3);

    // The file the anchor was noted from, grown by the records written since: the noted record is still in it.
    const grown = await verify(path, '--anchor', noted);
    assert.equal(grown.code, 0, grown.err);
    assert.match(grown.out, /^ok: 8 records verified, from the start of the chain\n/);

    // Records removed from the end, the noted one among them, and the service restarted: the chain verifies again,
    // from its start, and only the anchor shows the records that are gone.
    const lines = readFileSync(path, 'utf8').split('\n').slice(0, -1);
    writeFileSync(
      path,
      lines
        .slice(0, 3)
        .map((line) => `${line}\n`)
        .join(''),
    );
    await writeMore(9, 2);
    assert.equal((await verify(path, '--genesis')).code, 0);
    const cut = await verify(path, '--anchor', noted);
    assert.equal(cut.code, 1, cut.out);
    assert.equal(cut.out, '');
    assert.match(
      cut.err,
      new RegExp(`the --anchor record ${noted} is not in this file, nor do its records continue from it`),
    );
  });

  it('--anchor with --rotated finds the noted record in whichever file rotation moved it to', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    const [, second] = (await writeRotated(path, 8)) as [string, string];
    const noted = JSON.parse(readFileSync(second, 'utf8').split('\n')[0] as string).record_hash as string;
    const found = await verify(path, '--rotated', '--anchor', noted);
    assert.equal(found.code, 0, found.err);
    assert.match(found.out, /^ok: 8 records verified, from the start of the chain\n/);
    // The files from the noted record on, removed: what is left verifies, but does not hold the noted record.
    for (const file of [second, `${path}.1`, path]) rmSync(file);
    const gone = await verify(path, '--rotated', '--anchor', noted);
    assert.equal(gone.code, 1, gone.out);
    assert.match(gone.err, /the --anchor record [0-9a-f]{64} is not in these files/);
  });
});

// `ambit` dispatch: unknown commands and flags, --help, serve and audit verify refusals, bin/ambit.js.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createAuditWriter } from '../../src/platform/audit/create-audit-writer.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { ROOT, runCli } from '../helpers/run-cli.ts';
import { AUDIT_SECRET, INVALID, READER_ENV, useScratchDir, VALID } from './cli-fixture.ts';

const scratch = useScratchDir();

describe('ambit dispatch and flags', () => {
  it('answers an unknown command with exit 2 and the usage', async () => {
    const result = await runCli(['frobnicate', 'now']);
    assert.equal(result.code, 2);
    assert.equal(result.err[0], 'unknown command: frobnicate now');
    const text = result.err.join('\n');
    for (const command of ['relay serve', 'config check', 'keys generate', 'audit verify', 'demo']) {
      assert.ok(text.includes(`ambit ${command}`), command);
    }
  });

  it('treats a known first word with an unknown second word as unknown', async () => {
    const result = await runCli(['config', 'lint']);
    assert.equal(result.code, 2);
    assert.match(result.err[0] ?? '', /^unknown command: config lint$/);
  });

  it('prints the usage on --help (exit 0) and without arguments (exit 2)', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    assert.ok(help.out.includes('Commands:'));
    const bare = await runCli([]);
    assert.equal(bare.code, 2);
    assert.ok(bare.out.includes('Commands:'));
  });

  it('prints a command summary on <command> --help without running it', async () => {
    const result = await runCli(['keys', 'generate', '--help']);
    assert.equal(result.code, 0);
    assert.equal(result.out.length, 1);
    assert.match(result.out[0] ?? '', /^ambit keys generate: /);
    // The summary names every line the command prints besides the key.
    assert.match(result.out[0] ?? '', /fingerprint and commitment/);
  });

  it('says what audit verify --rotated reads', async () => {
    const result = await runCli(['audit', 'verify', '--help']);
    assert.equal(result.code, 0);
    assert.match(result.out[0] ?? '', /--rotated \(F\.N \.\.\. F\.1, then F, as one chain\)/);
  });

  it('rejects unknown or misspelt flags with exit 2, naming the flag', async () => {
    const cases: [string[], RegExp][] = [
      [['config', 'check', '--confg', 'relay.yaml'], /--confg/],
      [['keys', 'generate', '--id', 'reader', '--force'], /--force/],
      [['relay', 'serve', '--port', '80'], /--port/],
      [['audit', 'verify', '--fil', 'x'], /--fil/],
      [['keys', 'generate', '--id', 'reader', 'extra'], /extra/],
      // The demo takes no flags: one it ignored would leave the user believing it applied (a --bind, say).
      [['demo', '--bind', '0.0.0.0:4242'], /--bind/],
    ];
    for (const [argv, pattern] of cases) {
      const result = await runCli(argv, READER_ENV);
      assert.equal(result.code, 2, argv.join(' '));
      assert.deepEqual(result.out, [], argv.join(' '));
      assert.match(result.err.join('\n'), pattern);
    }
  });

  it('relay serve refuses a malformed --bind and an invalid config before listening', async () => {
    for (const bind of ['localhost', '127.0.0.1:99999', '[::1]:65536']) {
      const badBind = await runCli(
        ['relay', 'serve', '--config', join(VALID, 'minimal.yaml'), '--bind', bind],
        READER_ENV,
      );
      assert.equal(badBind.code, 2, bind);
      assert.match(badBind.err.join('\n'), /--bind must be host:port with a port from 0 to 65535/);
    }

    for (const workers of ['0', '2.5', 'many', '257']) {
      const badWorkers = await runCli(
        ['relay', 'serve', '--config', join(VALID, 'minimal.yaml'), '--workers', workers],
        READER_ENV,
      );
      assert.equal(badWorkers.code, 2, workers);
      assert.match(badWorkers.err.join('\n'), /--workers must be a whole number from 1 to 256, or auto/);
    }

    const badConfig = await runCli(
      ['relay', 'serve', '--config', join(INVALID, 'duplicate-dataset-id.yaml')],
      READER_ENV,
    );
    assert.equal(badConfig.code, 1);
    assert.match(badConfig.err.join('\n'), /config\.duplicate_id at datasets\.1/);
    assert.deepEqual(badConfig.out, []);
  });

  it('refuses an unknown AMBIT_LOG_LEVEL with exit 2 before reading the config, in every command that logs', async () => {
    const { dir } = scratch;
    const expected = [
      'AMBIT_LOG_LEVEL must be one of silent, fatal, error, warn, info, debug, trace (unset: info)',
    ];
    for (const argv of [
      ['relay', 'serve', '--config', join(VALID, 'minimal.yaml')],
      ['verifier', 'serve', '--config', join(VALID, 'minimal.yaml')],
      ['metadata', 'serve', '--dir', dir],
    ]) {
      const result = await runCli(argv, { AMBIT_LOG_LEVEL: 'verbose' });
      assert.equal(result.code, 2, argv.join(' '));
      assert.deepEqual(result.err, expected, argv.join(' '));
    }
    const demo = await runCli(['demo'], { AMBIT_LOG_LEVEL: 'INFO', AMBIT_DEMO_STATE_DIR: dir });
    assert.equal(demo.code, 2);
    assert.deepEqual(demo.err, [expected[0]?.replace('(unset: info)', '(unset: warn)')]);
  });

  it('audit verify needs a file and a set secret variable', async () => {
    const { dir } = scratch;
    const result = await runCli([
      'audit',
      'verify',
      '--file',
      join(dir, 'audit.jsonl'),
      '--secret-env',
      'UNSET',
    ]);
    assert.equal(result.code, 2);
    assert.match(result.err.join('\n'), /--secret-env/);
    // A name every object inherits is no variable of the environment: not a function's text taken as the secret.
    for (const name of ['toString', 'constructor']) {
      const inherited = await runCli([
        'audit',
        'verify',
        '--file',
        join(dir, 'audit.jsonl'),
        '--secret-env',
        name,
      ]);
      assert.equal(inherited.code, 2);
      assert.match(
        inherited.err.join('\n'),
        new RegExp(`environment variable ${name} \\(named by --secret-env\\) is not set`),
      );
    }
  });

  it('audit verify says whether a file starts the chain, and --genesis or --anchor require where it starts', async () => {
    const { dir } = scratch;
    const file = join(dir, 'chain.jsonl');
    const writer = createAuditWriter({
      sink: 'jsonl',
      path: file,
      secret: Buffer.from(AUDIT_SECRET),
      writePolicy: 'fail_closed',
      clock: systemClock,
      random: systemRandom,
      logger: silentLogger(),
    });
    for (let n = 1; n <= 5; n++) writer.write({ n });
    await writer.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const verify = (path: string, ...flags: string[]) =>
      runCli(['audit', 'verify', '--file', path, '--secret-env', 'S', ...flags], { S: AUDIT_SECRET });

    const whole = await verify(file);
    // The last record_hash is printed: the anchor for the records written next, and what a later run compares
    // with to see records removed from the end (which leave a chain that verifies).
    const last = JSON.parse(lines[4] as string).record_hash as string;
    assert.deepEqual(
      [whole.code, whole.out],
      [
        0,
        [
          'ok: 5 records verified, from the start of the chain',
          `last record_hash ${last} (the --anchor of the records written after it)`,
        ],
      ],
    );
    assert.equal((await verify(file, '--genesis')).code, 0);

    // The first two records removed: the rest still verifies on its own, but does not start the chain.
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, `${lines.slice(2).join('\n')}\n`);
    const anchor = JSON.parse(lines[1] as string).record_hash as string;
    const rest = await verify(cut);
    assert.equal(rest.code, 0);
    assert.match(rest.out.join('\n'), new RegExp(`^ok: 3 records verified, continuing from ${anchor} `));
    const required = await verify(cut, '--genesis');
    assert.equal(required.code, 1);
    assert.match(required.err.join('\n'), /chain broken in .*cut\.jsonl at line 1/);
    assert.equal((await verify(cut, '--anchor', anchor)).code, 0);
    assert.equal((await verify(cut, '--anchor', 'f'.repeat(64))).code, 1);
    assert.equal((await verify(cut, '--anchor', 'not-a-hash')).code, 2);
    assert.equal((await verify(cut, '--genesis', '--anchor', anchor)).code, 2);
  });

  it('audit verify names a file it cannot read instead of throwing', async () => {
    const { dir } = scratch;
    const missing = join(dir, 'no-such-audit.jsonl');
    for (const file of [missing, dir]) {
      const result = await runCli(['audit', 'verify', '--file', file, '--secret-env', 'S'], {
        S: AUDIT_SECRET,
      });
      assert.equal(result.code, 1);
      assert.match(result.err.join('\n'), new RegExp(`^cannot read ${file}: (ENOENT|not a regular file)`));
    }
  });

  it('audit verify refuses a pipe or a device instead of waiting on it', () => {
    const { dir } = scratch;
    const fifo = join(dir, 'audit-pipe.jsonl');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    // A separate process: reading a pipe nobody writes to would block this one for good.
    for (const file of [fifo, '/dev/zero']) {
      const result = spawnSync(
        process.execPath,
        ['bin/ambit.js', 'audit', 'verify', '--file', file, '--secret-env', 'S'],
        { cwd: ROOT, encoding: 'utf8', env: { ...process.env, S: AUDIT_SECRET }, timeout: 30_000 },
      );
      assert.equal(result.status, 1, `${file}: ${result.stderr}`);
      assert.equal(
        result.stderr,
        `cannot read ${file}: not a regular file (a directory, device, pipe or socket is not read)\n`,
      );
    }
  });
});

describe('bin/ambit.js', () => {
  it('runs as a real process', () => {
    const result = spawnSync(process.execPath, ['bin/ambit.js', '--help'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^Ambit: registry relay and evidence verifier\n/);
    assert.match(result.stdout, /ambit keys generate/);
    assert.equal(result.stderr, '');
  });

  it('reports an unknown AMBIT_LOG_LEVEL in one line, without a stack trace', () => {
    const result = spawnSync(
      process.execPath,
      ['bin/ambit.js', 'relay', 'serve', '--config', join(VALID, 'minimal.yaml')],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...READER_ENV, AMBIT_LOG_LEVEL: 'verbose' } },
    );
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^AMBIT_LOG_LEVEL must be one of [a-z, ]+ \(unset: info\)\n$/);
  });
});

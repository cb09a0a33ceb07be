// The `ambit` CLI through `main(argv, io)` with captured output, plus one real `node bin/ambit.js` run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAuditWriter } from '../../src/platform/audit/create-audit-writer.ts';
import { createApiKeyAuthenticator, fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { ConfigError, formatIssue } from '../../src/platform/config/config-error.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { ROOT, runCli } from '../helpers/run-cli.ts';

const VALID = join(ROOT, 'test/config/valid');
const INVALID = join(ROOT, 'test/config/invalid');
const AUDIT_SECRET = 'audit-secret-for-cli-tests-0123456789abc';
const READER_ENV = { READER_HASH: fingerprintOf('reader-key'), AUDIT_SECRET };

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ambit-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('ambit keys generate', () => {
  it('prints exactly the id, key, fingerprint and commitment lines', async () => {
    const result = await runCli(['keys', 'generate', '--id', 'reader']);
    assert.equal(result.code, 0);
    assert.deepEqual(result.err, []);
    assert.equal(result.out.length, 4, result.out.join('\n'));
    const [idLine, keyLine, fingerprintLine, commitmentLine] = result.out as [string, string, string, string];
    assert.equal(idLine, 'api_key_id=reader');
    const key = /^api_key=([A-Za-z0-9_-]{43})$/.exec(keyLine)?.[1];
    assert.ok(key, `not a 43-character base64url key: ${keyLine}`);
    assert.equal(Buffer.from(key, 'base64url').length, 32);
    const fingerprint = `sha256:${sha256(key)}`;
    assert.equal(fingerprintLine, `fingerprint=${fingerprint}`);
    const body = JSON.stringify({
      product: 'ambit-relay',
      credential_type: 'api_key',
      credential_id: 'reader',
      fingerprint,
    });
    assert.equal(commitmentLine, `commitment=sha256:${sha256(body)}`);
    assert.match(commitmentLine, /^commitment=sha256:[0-9a-f]{64}$/);
  });

  it('draws a fresh key on every run', async () => {
    const first = await runCli(['keys', 'generate', '--id', 'reader']);
    const second = await runCli(['keys', 'generate', '--id', 'reader']);
    assert.notEqual(first.out[1], second.out[1]);
    assert.notEqual(first.out[3], second.out[3]);
  });

  it('prints a commitment the config loader accepts, and detects a swapped or edited one', async () => {
    const generated = await runCli(['keys', 'generate', '--id', 'reader']);
    const value = (name: string) =>
      generated.out.find((line) => line.startsWith(`${name}=`))?.slice(name.length + 1) ?? '';
    const [key, fingerprint, commitment] = [value('api_key'), value('fingerprint'), value('commitment')];
    const config = join(dir, 'committed.yaml');
    const write = (pinned: string) =>
      writeFileSync(
        config,
        readFileSync(join(VALID, 'api-key-commitment.yaml'), 'utf8').replace(
          /commitment: sha256:[0-9a-f]{64}/,
          `commitment: ${pinned}`,
        ),
      );
    const env = { READER_HASH: fingerprint, AUDIT_SECRET };

    write(commitment);
    const loaded = loadRelayConfig(config, env);
    assert.equal(createApiKeyAuthenticator(loaded.secrets.apiKeys)(key).id, 'reader');
    assert.equal((await runCli(['config', 'check', '--config', config], env)).code, 0);

    // Another key's fingerprint in the environment no longer matches the pasted commitment.
    const expectMismatch = (readerHash: string) => {
      assert.throws(
        () => loadRelayConfig(config, { ...env, READER_HASH: readerHash }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.issues.length === 1 &&
          error.issues[0]?.path === 'auth.api_keys.0.fingerprint.commitment' &&
          error.issues[0]?.code === 'config.validation_error',
      );
    };
    expectMismatch(fingerprintOf('some-other-key'));

    // One edited hex digit in the commitment is caught too.
    const last = commitment.at(-1) === '0' ? '1' : '0';
    write(`${commitment.slice(0, -1)}${last}`);
    expectMismatch(fingerprint);
    const check = await runCli(['config', 'check', '--config', config], env);
    assert.equal(check.code, 1);
    assert.ok(check.err.some((line) => line.includes('auth.api_keys.0.fingerprint.commitment')));
  });

  it('refuses a missing or malformed id with exit 2 and prints no key', async () => {
    for (const argv of [
      ['keys', 'generate'],
      ['keys', 'generate', '--id', 'Reader'],
      ['keys', 'generate', '--id', '1reader'],
      ['keys', 'generate', '--id', 'read-er'],
      ['keys', 'generate', '--id', ''],
      ['keys', 'generate', '--id'],
    ]) {
      const result = await runCli(argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.deepEqual(result.out, [], argv.join(' '));
      assert.ok(result.err.join('\n').length > 0, argv.join(' '));
    }
    assert.match(
      (await runCli(['keys', 'generate', '--id', 'Reader'])).err.join('\n'),
      /\^\[a-z\]\[a-z0-9_\]\*\$/,
    );
  });
});

describe('ambit config check', () => {
  it('prints one ok line for a valid config', async () => {
    const config = join(VALID, 'minimal.yaml');
    const result = await runCli(['config', 'check', '--config', config], READER_ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.deepEqual(result.out, [`ok: ${config} (1 datasets, 1 entities, auth api_key)`]);
    assert.deepEqual(result.err, []);
  });

  it('prints every issue of a failing config and exits 1', async () => {
    const config = join(INVALID, 'many-semantic-errors.yaml');
    const result = await runCli(['config', 'check', '--config', config], READER_ENV);
    assert.equal(result.code, 1);
    assert.deepEqual(result.out, []);
    let issues: string[] = [];
    try {
      loadRelayConfig(config, READER_ENV);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      issues = error.issues.map(formatIssue);
    }
    assert.ok(issues.length >= 5);
    assert.equal(result.err[0], `${config}: ${issues.length} problems`);
    assert.deepEqual(
      result.err.slice(1),
      issues.map((line) => `  ${line}`),
    );
  });

  it('reports a missing config file as a problem, not a crash', async () => {
    const result = await runCli(['config', 'check', '--config', join(dir, 'absent.yaml')], READER_ENV);
    assert.equal(result.code, 1);
    assert.match(result.err.join('\n'), /config\.file_unreadable/);
  });

  it('takes unset variables from --env-file, letting the real environment win', async () => {
    const config = join(VALID, 'minimal.yaml');
    const envFile = join(dir, 'relay.env');
    writeFileSync(
      envFile,
      [
        '# secrets for the minimal config',
        `export READER_HASH=${fingerprintOf('reader-key')}`,
        `AUDIT_SECRET="${AUDIT_SECRET}"  # quoted, with a comment`,
        '',
      ].join('\n'),
    );
    const fromFile = await runCli(['config', 'check', '--config', config, '--env-file', envFile], {});
    assert.equal(fromFile.code, 0, fromFile.err.join('\n'));

    // A 31-byte secret in the real environment overrides the file's good one, so the check fails on it.
    const overridden = await runCli(['config', 'check', '--config', config, '--env-file', envFile], {
      AUDIT_SECRET: 'a'.repeat(31),
    });
    assert.equal(overridden.code, 1);
    assert.match(overridden.err.join('\n'), /config\.validation_error at audit\.hash_secret_env/);

    // An undefined entry in the environment is not a value and does not hide the file's.
    const undefinedEntry = await runCli(['config', 'check', '--config', config, '--env-file', envFile], {
      AUDIT_SECRET: undefined,
    });
    assert.equal(undefinedEntry.code, 0, undefinedEntry.err.join('\n'));

    const withoutFile = await runCli(['config', 'check', '--config', config], {});
    assert.equal(withoutFile.code, 1);
    assert.match(withoutFile.err.join('\n'), /config\.missing_secret at auth\.api_keys\.0\.fingerprint/);
  });

  it('reports an unreadable --env-file', async () => {
    const config = join(VALID, 'minimal.yaml');
    const result = await runCli(['config', 'check', '--config', config, '--env-file', join(dir, 'none.env')]);
    assert.equal(result.code, 1);
    assert.match(result.err.join('\n'), /config\.env_file_unreadable/);
  });

  it('falls back to AMBIT_RELAY_CONFIG, and --config wins over it', async () => {
    const valid = join(VALID, 'minimal.yaml');
    const invalid = join(INVALID, 'missing-env.yaml');
    const fallback = await runCli(['config', 'check'], { ...READER_ENV, AMBIT_RELAY_CONFIG: valid });
    assert.equal(fallback.code, 0, fallback.err.join('\n'));
    assert.match(fallback.out[0] ?? '', /^ok: .*minimal\.yaml/);

    const flagWins = await runCli(['config', 'check', '--config', valid], {
      ...READER_ENV,
      AMBIT_RELAY_CONFIG: invalid,
    });
    assert.equal(flagWins.code, 0);

    const envInvalid = await runCli(['config', 'check'], { ...READER_ENV, AMBIT_RELAY_CONFIG: invalid });
    assert.equal(envInvalid.code, 1);
    assert.match(envInvalid.err.join('\n'), /config\.missing_secret/);
  });

  it('exits 2 when no config is named', async () => {
    const result = await runCli(['config', 'check'], READER_ENV);
    assert.equal(result.code, 2);
    assert.match(
      result.err.join('\n'),
      /--config is required \(or set AMBIT_RELAY_CONFIG or AMBIT_VERIFIER_CONFIG\)/,
    );
  });
});

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
  });

  it('audit verify says whether a file starts the chain, and --genesis or --anchor require where it starts', async () => {
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
    assert.deepEqual([whole.code, whole.out], [0, ['ok: 5 records verified, from the start of the chain']]);
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
    const missing = join(dir, 'no-such-audit.jsonl');
    for (const file of [missing, dir]) {
      const result = await runCli(['audit', 'verify', '--file', file, '--secret-env', 'S'], {
        S: AUDIT_SECRET,
      });
      assert.equal(result.code, 1);
      assert.match(result.err.join('\n'), new RegExp(`^cannot read ${file}: E(NOENT|ISDIR)`));
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

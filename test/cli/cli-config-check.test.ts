// `ambit config check`: the ok line, every issue of a failing config, --env-file and AMBIT_RELAY_CONFIG.
import assert from 'node:assert/strict';
import fs, { readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { ConfigError, formatIssue } from '../../src/platform/config/config-error.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { ROOT, runCli } from '../helpers/run-cli.ts';
import { ALWAYS_TRUE_CLAIM_LINES } from '../helpers/verifier-harness.ts';
import { AUDIT_SECRET, INVALID, READER_ENV, useScratchDir, VALID } from './cli-fixture.ts';

const scratch = useScratchDir();

describe('ambit config check', () => {
  it('prints one ok line for a valid config', async () => {
    const config = join(VALID, 'minimal.yaml');
    const result = await runCli(['config', 'check', '--config', config], READER_ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.deepEqual(result.out, [`ok: ${config} (1 dataset, 1 entity, auth api_key)`]);
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
    const { dir } = scratch;
    const result = await runCli(['config', 'check', '--config', join(dir, 'absent.yaml')], READER_ENV);
    assert.equal(result.code, 1);
    assert.match(result.err.join('\n'), /config\.file_unreadable/);
  });

  it('takes unset variables from --env-file, letting the real environment win', async () => {
    const { dir } = scratch;
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

  it('never prints a secret whose reference stands where the variable name belongs', async () => {
    const { dir } = scratch;
    // Letters and digits only, so it passes for a variable name (as `openssl rand -hex 32` output often does).
    const secret = 'f3a9c1d2e4b5a6978877665544332211aabbccddeeff00112233';
    const config = join(dir, 'secret-as-name.yaml');
    writeFileSync(
      config,
      readFileSync(join(VALID, 'minimal.yaml'), 'utf8').replace(
        'hash_secret_env: AUDIT_SECRET',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own reference syntax.
        'hash_secret_env: ${AUDIT_SECRET}',
      ),
    );
    const result = await runCli(['config', 'check', '--config', config], {
      ...READER_ENV,
      AUDIT_SECRET: secret,
    });
    assert.equal(result.code, 1);
    const output = [...result.out, ...result.err].join('\n');
    assert.ok(!output.includes(secret), output);
    assert.match(
      output,
      /config\.missing_secret at audit\.hash_secret_env: .*the value of AUDIT_SECRET.*write the variable's name/,
    );
  });

  it('refuses a config or --env-file that is a device rather than reading it forever', async () => {
    const config = join(VALID, 'minimal.yaml');
    const device = await runCli(['config', 'check', '--config', '/dev/zero'], READER_ENV);
    assert.equal(device.code, 1);
    assert.match(device.err.join('\n'), /config\.file_unreadable at \(root\): .*not a regular file/);
    const envFile = await runCli(['config', 'check', '--config', config, '--env-file', '/dev/zero']);
    assert.equal(envFile.code, 1);
    assert.match(envFile.err.join('\n'), /config\.env_file_unreadable at \(root\): .*not a regular file/);
  });

  it('reports an unreadable --env-file', async () => {
    const { dir } = scratch;
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

  it('with --kind, falls back to that kind of config when both variables are set', async () => {
    const { dir } = scratch;
    const verifier = join(dir, 'verifier.yaml');
    writeFileSync(
      verifier,
      [
        'server: { bind: 127.0.0.1:0 }',
        'auth:',
        '  mode: api_key',
        '  api_keys: [{ id: caller, fingerprint: { provider: env, name: READER_HASH }, scopes: [] }]',
        'audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }',
        'evidence:',
        '  service_id: cli.verifier',
        '  claims:',
        ...ALWAYS_TRUE_CLAIM_LINES,
        '',
      ].join('\n'),
    );
    const relay = join(VALID, 'minimal.yaml');
    const env = { ...READER_ENV, AMBIT_RELAY_CONFIG: relay, AMBIT_VERIFIER_CONFIG: verifier };
    const asVerifier = await runCli(['config', 'check', '--kind', 'verifier'], env);
    assert.equal(asVerifier.code, 0, asVerifier.err.join('\n'));
    assert.match(asVerifier.out[0] ?? '', /^ok: .*verifier\.yaml \(verifier, 1 claim, /);
    const asRelay = await runCli(['config', 'check', '--kind', 'relay'], env);
    assert.equal(asRelay.code, 0, asRelay.err.join('\n'));
    assert.match(asRelay.out[0] ?? '', /^ok: .*minimal\.yaml/);
    // Only the other kind's variable set: --kind says which config is meant, so none is named.
    const none = await runCli(['config', 'check', '--kind', 'verifier'], {
      ...READER_ENV,
      AMBIT_RELAY_CONFIG: relay,
    });
    assert.equal(none.code, 2);
    assert.match(none.err.join('\n'), /--config is required \(or set AMBIT_VERIFIER_CONFIG\)/);
  });

  it('reads and parses the config file once, whichever its kind (parsing a large one takes seconds)', async () => {
    const relay = join(VALID, 'minimal.yaml');
    const verifier = join(scratch.dir, 'verifier-once.yaml');
    writeFileSync(verifier, readFileSync(join(ROOT, 'demo/verifier.yaml')));
    const opened: string[] = [];
    const openSync = fs.openSync;
    fs.openSync = ((path: fs.PathLike, flags: fs.OpenMode, mode?: fs.Mode) => {
      opened.push(String(path));
      return openSync(path, flags, mode);
    }) as typeof fs.openSync;
    syncBuiltinESMExports();
    try {
      await runCli(['config', 'check', '--config', relay], READER_ENV);
      await runCli(['config', 'check', '--config', verifier], {});
    } finally {
      fs.openSync = openSync;
      syncBuiltinESMExports();
    }
    assert.deepEqual(
      opened.filter((path) => path === relay || path === verifier),
      [relay, verifier],
    );
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

// `ambit keys generate`: the lines it prints, a fresh key each run, a checked commitment, refused ids.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createApiKeyAuthenticator, fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { ConfigError } from '../../src/platform/config/config-error.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { loadVerifierConfigValue } from '../../src/verifier/config/load-verifier-config.ts';
import { runCli } from '../helpers/run-cli.ts';
import { AUDIT_SECRET, useScratchDir, VALID } from './cli-fixture.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const scratch = useScratchDir();

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
    const { dir } = scratch;
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

  it('prints a commitment a verifier config accepts with --for verifier', async () => {
    const generated = await runCli(['keys', 'generate', '--id', 'portal', '--for', 'verifier']);
    assert.equal(generated.code, 0, generated.err.join('\n'));
    const value = (name: string) =>
      generated.out.find((line) => line.startsWith(`${name}=`))?.slice(name.length + 1) ?? '';
    const config = (commitment: string) => ({
      auth: {
        mode: 'api_key',
        api_keys: [{ id: 'portal', fingerprint: { provider: 'env', name: 'PORTAL_HASH', commitment } }],
      },
      audit: { sink: 'stdout', hash_secret_env: 'AUDIT_SECRET' },
      evidence: { service_id: 'keys.test', claims: [] },
    });
    const env = { PORTAL_HASH: value('fingerprint'), AUDIT_SECRET };
    const loaded = loadVerifierConfigValue(config(value('commitment')), env, process.cwd());
    assert.equal(loaded.secrets.apiKeys[0]?.fingerprint, value('fingerprint'));
    // A relay commitment (the default) is bound to the relay: the verifier refuses it.
    const forRelay = await runCli(['keys', 'generate', '--id', 'portal']);
    const relayValue = (name: string) =>
      forRelay.out.find((line) => line.startsWith(`${name}=`))?.slice(name.length + 1) ?? '';
    assert.throws(
      () =>
        loadVerifierConfigValue(
          config(relayValue('commitment')),
          { ...env, PORTAL_HASH: relayValue('fingerprint') },
          process.cwd(),
        ),
      (error: unknown) =>
        error instanceof ConfigError && error.issues[0]?.path === 'auth.api_keys.0.fingerprint.commitment',
    );
    const unknown = await runCli(['keys', 'generate', '--id', 'portal', '--for', 'notary']);
    assert.equal(unknown.code, 2);
    assert.deepEqual(unknown.out, []);
    assert.match(unknown.err.join('\n'), /--for must be relay or verifier/);
  });

  it('names the command a relay takes when given a commitment printed for the verifier', async () => {
    const { dir } = scratch;
    const generated = await runCli(['keys', 'generate', '--id', 'reader', '--for', 'verifier']);
    const value = (name: string) =>
      generated.out.find((line) => line.startsWith(`${name}=`))?.slice(name.length + 1) ?? '';
    const config = join(dir, 'verifier-commitment.yaml');
    writeFileSync(
      config,
      readFileSync(join(VALID, 'api-key-commitment.yaml'), 'utf8').replace(
        /commitment: sha256:[0-9a-f]{64}/,
        `commitment: ${value('commitment')}`,
      ),
    );
    const check = await runCli(['config', 'check', '--config', config], {
      READER_HASH: value('fingerprint'),
      AUDIT_SECRET,
    });
    assert.equal(check.code, 1);
    const line = check.err.find((text) => text.includes('auth.api_keys.0.fingerprint.commitment'));
    assert.ok(line, check.err.join('\n'));
    assert.match(line, /`ambit keys generate --id reader` prints/);
    assert.ok(!line.includes(value('fingerprint')), 'the fingerprint is not quoted');
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

  it('takes an id with a hyphen for the verifier, whose credential ids allow one (the reference writes caller-a)', async () => {
    const generated = await runCli(['keys', 'generate', '--id', 'caller-a', '--for', 'verifier']);
    assert.equal(generated.code, 0, generated.err.join('\n'));
    const value = (name: string) =>
      generated.out.find((line) => line.startsWith(`${name}=`))?.slice(name.length + 1) ?? '';
    assert.equal(value('api_key_id'), 'caller-a');
    const loaded = loadVerifierConfigValue(
      {
        auth: {
          mode: 'api_key',
          api_keys: [
            {
              id: 'caller-a',
              fingerprint: { provider: 'env', name: 'A_HASH', commitment: value('commitment') },
            },
          ],
        },
        audit: { sink: 'stdout', hash_secret_env: 'AUDIT_SECRET' },
        evidence: { service_id: 'keys.test', claims: [] },
      },
      { A_HASH: value('fingerprint'), AUDIT_SECRET },
      process.cwd(),
    );
    assert.equal(loaded.config.auth.api_keys[0]?.id, 'caller-a');
    const bad = await runCli(['keys', 'generate', '--id', 'Caller-a', '--for', 'verifier']);
    assert.equal(bad.code, 2);
    assert.match(bad.err.join('\n'), /\^\[a-z\]\[a-z0-9_-\]\*\$/);
  });
});

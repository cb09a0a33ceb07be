// `ambit metadata serve` as a real process: SIGHUP (a "reload" to systemd's ExecReload) does not stop it, as it
// does not stop the relay or the verifier; SIGTERM does, with status 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { publishMetadata } from '../../src/publisher/publish-metadata.ts';
import { ROOT } from '../helpers/run-cli.ts';
import { MANIFEST, useTempDir } from './publisher-fixture.ts';

describe('ambit metadata serve signals', () => {
  const tmp = useTempDir('ambit-metadata-signals-');

  it('ignores SIGHUP, saying so, and stops on SIGTERM', async () => {
    const site = join(tmp, 'site');
    publishMetadata(MANIFEST, site);
    const child = spawn(
      process.execPath,
      ['bin/ambit.js', 'metadata', 'serve', '--dir', site, '--bind', '127.0.0.1:0'],
      { cwd: ROOT, env: { ...process.env, AMBIT_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (code, signal) => resolve([code, signal])),
    );
    try {
      const waitFor = async (test: () => boolean) => {
        while (!test() && child.exitCode === null && child.signalCode === null) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      await waitFor(() => /serving .* on http:\S+/.test(stdout));
      const url = /serving .* on (http:\S+)/.exec(stdout)?.[1];
      assert.ok(url, `${stdout}\n${stderr}`);
      child.kill('SIGHUP');
      await waitFor(() => stderr.includes('SIGHUP ignored'));
      assert.match(stderr, /SIGHUP ignored/);
      const response = await fetch(`${url}/metadata/catalog.json`);
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      child.kill('SIGTERM');
      assert.deepEqual(await exited, [0, null]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

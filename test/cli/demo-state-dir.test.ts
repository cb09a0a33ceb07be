// AMBIT_DEMO_STATE_DIR given as a relative path, from a terminal anywhere: the keys and both audit files land in
// that one folder under the working directory, never split with part of them under demo/.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/run-cli.ts';

describe('a relative AMBIT_DEMO_STATE_DIR', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'ambit-demo-cwd-'));
  // Unique, so that a demo writing under demo/ (the mistake checked here) is seen and cleaned up.
  const relative = `state-${basename(cwd)}`;
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  after(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(cwd, { recursive: true, force: true });
    rmSync(join(ROOT, 'demo', relative), { recursive: true, force: true });
  });

  it('holds the keys and both audit files, under the working directory', async () => {
    const demo = spawn(process.execPath, [join(ROOT, 'bin/ambit.js'), 'demo'], {
      cwd,
      env: {
        ...process.env,
        AMBIT_LOG_LEVEL: 'silent',
        AMBIT_RELAY_BIND: '127.0.0.1:0',
        AMBIT_VERIFIER_BIND: '127.0.0.1:0',
        AMBIT_VERIFIER_ADMIN_BIND: '127.0.0.1:0',
        AMBIT_DEMO_STATE_DIR: relative,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = demo;
    exited = new Promise((resolve) => demo.once('exit', (code) => resolve(code)));
    let stdout = '';
    let stderr = '';
    await new Promise<void>((resolve) => {
      demo.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('Press Ctrl+C')) resolve();
      });
      demo.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      void exited.then(() => resolve());
    });
    assert.match(stdout, /Press Ctrl\+C/, stderr);
    demo.kill('SIGINT');
    assert.equal(await exited, 0, stderr);
    const state = join(cwd, relative);
    assert.equal(existsSync(join(ROOT, 'demo', relative)), false, 'nothing written under demo/');
    assert.deepEqual(readdirSync(state).sort(), ['audit.jsonl', 'demo-keys.env', 'verifier-audit.jsonl']);
    assert.ok(stdout.includes(`stored in ${join(state, 'demo-keys.env')}`), stdout.split('\n')[1]);
  });
});

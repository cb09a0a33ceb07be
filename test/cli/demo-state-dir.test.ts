// AMBIT_DEMO_STATE_DIR given as a relative path, from a terminal anywhere: the keys and both audit files land in
// that one folder under the working directory, never split with part of them under demo/. A folder the keys cannot
// be kept in, or a keys file edited by hand, is said in one line naming the file.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ensureDemoKeys, personaVar } from '../../src/cli/demo-keys.ts';
import { demoEnv } from '../helpers/demo-env.ts';
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
      env: demoEnv(relative),
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

describe('an AMBIT_DEMO_STATE_DIR the demo cannot keep its keys in', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-demo-state-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const runDemo = (state: string) =>
    spawnSync(process.execPath, [join(ROOT, 'bin/ambit.js'), 'demo'], {
      cwd: ROOT,
      env: demoEnv(state),
      encoding: 'utf8',
      // A demo that started after all would run until stopped.
      timeout: 60_000,
    });

  it('is said in one line naming the keys file and the variable, with exit 1 and no stack trace', () => {
    const aFile = join(dir, 'a-file');
    writeFileSync(aFile, '');
    const keysAsFolder = join(dir, 'keys-as-folder');
    mkdirSync(join(keysAsFolder, 'demo-keys.env'), { recursive: true });
    for (const state of [aFile, keysAsFolder]) {
      const demo = runDemo(state);
      assert.equal(demo.status, 1, demo.stderr);
      assert.equal(demo.stdout, '');
      const lines = demo.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, demo.stderr);
      assert.ok(
        lines[0]?.startsWith(`cannot keep the demo keys in ${join(state, 'demo-keys.env')}: `),
        lines[0],
      );
      assert.match(lines[0] ?? '', /AMBIT_DEMO_STATE_DIR/);
    }
  });

  it('names a keys file edited by hand, and how to get a new one, rather than config problems', () => {
    const state = join(dir, 'edited');
    const keysPath = join(state, 'demo-keys.env');
    ensureDemoKeys(keysPath);
    // A fingerprint line removed: the relay would not know the key the banner prints.
    const hash = personaVar('caseworker', 'HASH');
    const lines = readFileSync(keysPath, 'utf8').split('\n');
    writeFileSync(keysPath, lines.filter((line) => !line.startsWith(`${hash}=`)).join('\n'));
    const demo = runDemo(state);
    assert.equal(demo.status, 1, demo.stdout + demo.stderr);
    assert.equal(demo.stdout, '');
    assert.equal(
      demo.stderr,
      `the demo keys file ${keysPath} cannot be reused (${hash} is not in it): delete it to have new keys generated\n`,
    );
  });
});

// `npm start` as a user runs it: a real process, generated keys, and the printed curl commands work as printed.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Curl {
  url: string;
  headers: Record<string, string>;
  expectStatus: number | undefined;
}

/** Reads `curl -s [-H "Name: value"]... "URL"   # 400 code` lines back into requests. */
function parseCurl(line: string): Curl {
  const headers: Record<string, string> = {};
  for (const match of line.matchAll(/-H "([^:]+): ([^"]+)"/g))
    headers[(match[1] as string).toLowerCase()] = match[2] as string;
  const url = /(https?:\/\/[^\s"]+)/.exec(line.replace(/-H "[^"]+"/g, ''))?.[1];
  assert.ok(url, `no URL in ${line}`);
  const expected = /#\s*(\d{3})/.exec(line)?.[1];
  return { url, headers, expectStatus: expected ? Number(expected) : undefined };
}

describe('demo (npm start)', () => {
  let child: ChildProcess;
  let output = '';
  const state = mkdtempSync(join(tmpdir(), 'ambit-demo-'));

  before(async () => {
    child = spawn(process.execPath, ['bin/ambit.js', 'demo'], {
      cwd: ROOT,
      env: { ...process.env, AMBIT_RELAY_BIND: '127.0.0.1:0', AMBIT_DEMO_STATE_DIR: state },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    const deadline = Date.now() + 30_000;
    while (!output.includes('Press Ctrl+C') && Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(output.includes('Press Ctrl+C'), `demo did not start:\n${output}`);
  });

  after(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(state, { recursive: true, force: true });
  });

  it('generates keys once, outside git, readable only by the owner', () => {
    const keys = join(state, 'demo-keys.env');
    assert.equal(statSync(keys).mode & 0o777, 0o600);
    const text = readFileSync(keys, 'utf8');
    assert.match(text, /AMBIT_DEMO_CASEWORKER_KEY=[A-Za-z0-9_-]{43}\n/);
    assert.match(output, /Demo API keys \(generated/);
    assert.match(output, /caseworker\s+[A-Za-z0-9_-]{43}\s+\(metadata and rows/);
  });

  it('every printed curl command works as printed', async () => {
    const lines = output.split('\n').filter((line) => line.trim().startsWith('curl '));
    assert.ok(lines.length >= 6, output);
    for (const line of lines) {
      const curl = parseCurl(line);
      const response = await fetch(curl.url, { headers: curl.headers });
      const body = await response.text();
      assert.equal(response.status, curl.expectStatus ?? 200, `${line}\n${body}`);
      if (curl.expectStatus === undefined) assert.ok(body.length > 2, `empty body for ${line}`);
    }
  });

  it('writes a verifiable audit trail', async () => {
    const audit = readFileSync(join(state, 'audit.jsonl'), 'utf8').trim().split('\n');
    assert.ok(audit.length >= 5);
    const last = JSON.parse(audit.at(-1) as string);
    assert.match(last.record_hash, /^[0-9a-f]{64}$/);
    assert.ok(
      !readFileSync(join(state, 'audit.jsonl'), 'utf8').includes(
        readFileSync(join(state, 'demo-keys.env'), 'utf8').split('CASEWORKER_KEY=')[1]?.slice(0, 43) ?? 'x',
      ),
    );
  });
});

// Runs an `ambit … serve` command whose audit sink is stdout, as an operator piping it would: waits for its
// listening notice (read from both streams, so that a notice on the wrong one fails the checks, not the wait),
// makes one request through `call`, stops it with SIGTERM, and checks that stdout is exactly one verifiable record.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { verifyAuditChain } from '../../src/platform/audit/audit-envelope.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Returns what the command wrote to stderr (its notices and logs), for the caller's own checks. */
export async function serveWithStdoutAudit(options: {
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly auditSecret: string;
  readonly call: (url: string) => Promise<void>;
}): Promise<string> {
  const child = spawn(process.execPath, ['bin/ambit.js', ...options.args], {
    cwd: ROOT,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 20_000;
    while (
      !/listening on (http:\S+)/.test(stderr + stdout) &&
      Date.now() < deadline &&
      child.exitCode === null
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /listening on (http:\S+)/.exec(stderr + stdout)?.[1];
    assert.ok(url, stderr + stdout);
    await options.call(url);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
  const lines = stdout.split('\n');
  assert.equal(lines.pop(), '', 'stdout ends with a complete line');
  const chain = verifyAuditChain(lines, Buffer.from(options.auditSecret, 'utf8'), null);
  assert.deepEqual(chain.ok && chain.count, 1, JSON.stringify(chain));
  return stderr;
}

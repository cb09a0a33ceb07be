// `ambit relay serve --workers 2` with `audit.sink: stdout`, its standard output a real pipe (a FIFO read by `cat`,
// as in `ambit relay serve … | cat > out.jsonl`), under concurrent keep-alive load with records larger than the
// pipe's atomic write size (a long Data-Purpose, recorded verbatim), and admin requests to the primary meanwhile:
// every line must be whole JSON, every chain (one per worker, and the primary's) must verify, and there must be
// exactly one record per answered request.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type AuditEnvelope, verifyAuditChain } from '../../src/platform/audit/audit-envelope.ts';
import { createReloadFixture, RELOAD_AUDIT_SECRET, RELOAD_KEYS, reloadEnv } from '../relay/reload-fixture.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PERSON = '/v1/datasets/people/entities/person/records';
const REQUESTS = 3000;
const ADMIN_REQUESTS = 40;
const CONNECTIONS = 64;
/** Several times PIPE_BUF (4 KiB) per record: one group commit is far larger than any atomic pipe write. */
const PURPOSE_PAD = 'p'.repeat(9000);

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

function get(agent: Agent, url: string, purpose: string, key: string = RELOAD_KEYS.reader): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { agent, headers: { authorization: `Bearer ${key}`, 'data-purpose': purpose } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Splits interleaved chains apart by prev_hash, as an operator would: each line continues the chain it names. */
function splitChains(lines: readonly string[]): string[][] {
  const chains: string[][] = [];
  const byLastHash = new Map<string, string[]>();
  for (const [index, line] of lines.entries()) {
    const envelope = JSON.parse(line) as AuditEnvelope;
    let chain: string[] | undefined;
    if (envelope.prev_hash === null) {
      chain = [];
      chains.push(chain);
    } else {
      chain = byLastHash.get(envelope.prev_hash);
      assert.ok(chain, `line ${index + 1} continues no chain (a record before it is missing)`);
      byLastHash.delete(envelope.prev_hash);
    }
    chain.push(line);
    byLastHash.set(envelope.record_hash, chain);
  }
  return chains;
}

describe('ambit relay serve --workers 2 with the stdout audit sink on a pipe', () => {
  it('writes whole lines only: one verifiable chain per worker, one record per answered request', async (t) => {
    const fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    t.after(() => fixture.remove());
    const config = readFileSync(fixture.configPath, 'utf8');
    const stdoutConfig = config.replace(
      'audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }',
      'audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }',
    );
    assert.notEqual(stdoutConfig, config);
    writeFileSync(fixture.configPath, stdoutConfig);

    // A FIFO, not a socket pair (what `stdio: 'pipe'` makes): pipe semantics, as with a shell pipeline.
    const fifo = join(fixture.dir, 'audit.fifo');
    const outPath = join(fixture.dir, 'out.jsonl');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('sh', ['-c', 'exec cat < "$0" > "$1"', fifo, outPath], { stdio: 'ignore' });
    const readerExit = exitOf(reader);
    // Blocks until `cat` has opened the other end.
    const pipeFd = openSync(fifo, 'w');
    let relay: ChildProcess;
    try {
      relay = spawn(
        process.execPath,
        ['bin/ambit.js', 'relay', 'serve', '--config', fixture.configPath, '--workers', '2'],
        {
          cwd: ROOT,
          env: { ...process.env, ...reloadEnv(), AMBIT_LOG_LEVEL: 'warn' },
          stdio: ['ignore', pipeFd, 'pipe'],
        },
      );
    } finally {
      closeSync(pipeFd);
    }
    let stderr = '';
    relay.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const relayExit = exitOf(relay);
    t.after(() => {
      if (relay.exitCode === null) relay.kill('SIGKILL');
      if (reader.exitCode === null) reader.kill('SIGKILL');
    });

    const deadline = Date.now() + 60_000;
    while (!/admin listener on (http:\S+)/.test(stderr) && Date.now() < deadline && relay.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /listening on (http:\S+)/.exec(stderr)?.[1];
    const adminUrl = /admin listener on (http:\S+)/.exec(stderr)?.[1];
    assert.ok(url && adminUrl, stderr);

    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const statuses: number[] = [];
    const purposes = new Set<string>();
    let next = 0;
    // The primary writes its own admin records to standard output too, while it writes the workers' batches.
    const admin = async () => {
      for (let n = 0; n < ADMIN_REQUESTS; n++) {
        const purpose = `admin-${n}-${PURPOSE_PAD}`;
        purposes.add(purpose);
        statuses.push(await get(agent, `${adminUrl}/admin/v1/posture`, purpose, RELOAD_KEYS.ops_only));
      }
    };
    await Promise.all([
      admin(),
      ...Array.from({ length: CONNECTIONS }, async () => {
        while (next < REQUESTS) {
          const n = next++;
          const purpose = `load-${n}-${PURPOSE_PAD}`;
          purposes.add(purpose);
          statuses.push(await get(agent, `${url}${PERSON}/${(n % 30) + 1}`, purpose));
        }
      }),
    ]);
    agent.destroy();
    assert.equal(statuses.length, REQUESTS + ADMIN_REQUESTS);
    assert.deepEqual(
      statuses.filter((status) => status !== 200),
      [],
    );

    relay.kill('SIGTERM');
    assert.equal(await relayExit, 0, stderr);
    assert.equal(await readerExit, 0);

    const lines = readFileSync(outPath, 'utf8').split('\n');
    assert.equal(lines.pop(), '', 'the output ends with a complete line');
    const broken = lines.filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    assert.equal(broken.length, 0, `${broken.length} of ${lines.length} lines are not JSON`);

    const chains = splitChains(lines);
    assert.equal(chains.length, 3, 'one chain per worker, and the primary chain of admin requests');
    const secret = Buffer.from(RELOAD_AUDIT_SECRET, 'utf8');
    for (const chain of chains) {
      const result = verifyAuditChain(chain, secret, null);
      assert.ok(result.ok, JSON.stringify(result));
      assert.ok(result.count > 0, 'every process wrote records');
    }
    assert.equal(lines.length, REQUESTS + ADMIN_REQUESTS, 'one record per answered request');
    const recorded = new Set(lines.map((line) => (JSON.parse(line) as AuditEnvelope).record.purpose));
    assert.deepEqual(recorded, purposes);
  });
});

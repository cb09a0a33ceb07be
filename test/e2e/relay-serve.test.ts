// `ambit relay serve` as an operator runs it: a bad source stops startup with table, row and column.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { serveWithStdoutAudit } from '../helpers/stdout-audit-serve.ts';
import { writePeopleServeConfig } from './people-serve-config.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'serve-test-key-000000000000000000001';

const config = (dir: string): string => writePeopleServeConfig(dir);

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['bin/ambit.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    out += chunk;
  });
  return { child, output: () => out };
}

describe('ambit relay serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-serve-'));
  const env = { READER_HASH: fingerprintOf(KEY), AUDIT_SECRET: 'serve-test-audit-secret-0123456789abcdef' };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('fails startup on a bad row, naming table, data row and column', async () => {
    writeFileSync(join(dir, 'people.csv'), 'id,born\n1,2001-02-03\n2,2001-02-30\n');
    const { child, output } = run(['relay', 'serve', '--config', config(dir)], env);
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(output(), /ingest\.type_mismatch: table people_table \(data row 2, column "born"\)/);
  });

  it('with --workers, says which address a worker could not listen on and what to do, and exits 1', async () => {
    writeFileSync(join(dir, 'people.csv'), 'id,born\n1,2001-02-03\n');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const { child, output } = run(
        ['relay', 'serve', '--config', config(dir), '--workers', '2', '--bind', `127.0.0.1:${port}`],
        env,
      );
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 1, output());
      // Named with its address and what to do, once: by the primary, which the worker told.
      assert.match(
        output(),
        new RegExp(
          `cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use.*choose another address`,
        ),
      );
      assert.doesNotMatch(output(), /startup failed|EADDRINUSE/);
      assert.equal(output().match(/cannot listen on/g)?.length, 1, output());
    } finally {
      taken.close();
    }
  });

  it('with --workers, says a failed load once (the workers leave it to the primary), and exits 1', async () => {
    writeFileSync(join(dir, 'people.csv'), 'id,born\n1,2001-02-03\n2,2001-02-30\n');
    const { child, output } = run(['relay', 'serve', '--config', config(dir), '--workers', '2'], env);
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 1, output());
    assert.equal(output().match(/ingest\.type_mismatch/g)?.length, 1, output());
    assert.match(output(), /table people_table \(data row 2, column "born"\)/);
  });

  it('with --workers, says a failed load exactly as one process does, with the same exit status', async () => {
    writeFileSync(join(dir, 'people.csv'), 'id,born\n1,2001-02-03\n2,2001-02-30\n');
    const quiet = { ...env, AMBIT_LOG_LEVEL: 'silent' };
    const ended = async (args: string[]) => {
      const { child, output } = run(['relay', 'serve', '--config', config(dir), ...args], quiet);
      const code = await new Promise((resolve) => child.once('exit', resolve));
      return { code, output: output() };
    };
    const single = await ended([]);
    assert.equal(single.code, 1, single.output);
    assert.match(single.output, /^source failed to load: ingest\.type_mismatch: table people_table /);
    assert.deepEqual(await ended(['--workers', '2']), single);
  });

  it('reports every config problem and exits 1 before loading anything', async () => {
    const { child, output } = run(['relay', 'serve', '--config', config(dir)], {});
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(output(), /config\.missing_secret at auth\.api_keys\.0\.fingerprint/);
    assert.match(output(), /config\.missing_secret at audit\.hash_secret_env/);
  });

  it('serves, answers a scoped read, and drains on SIGTERM', async () => {
    writeFileSync(join(dir, 'people.csv'), 'id,born\n1,2001-02-03\n2,\n');
    const { child, output } = run(['relay', 'serve', '--config', config(dir)], env);
    const deadline = Date.now() + 20_000;
    while (!/listening on (http:\S+)/.test(output()) && Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /listening on (http:\S+)/.exec(output())?.[1];
    assert.ok(url, output());
    const response = await fetch(`${url}/v1/datasets/people/entities/person/records?limit=1`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      data: unknown;
      pagination: { has_more: boolean; next_cursor: string };
    };
    assert.deepEqual(body.data, [{ id: 1, born: '2001-02-03' }]);
    assert.equal(body.pagination.has_more, true);
    assert.ok(response.headers.get('link')?.includes(`cursor=${body.pagination.next_cursor}`));
    // SIGHUP is not a way to stop (Node's default would end the process at once): ignored, and said so.
    child.kill('SIGHUP');
    for (let waited = 0; !/SIGHUP ignored/.test(output()) && waited < 5_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(output(), /SIGHUP ignored/);
    assert.equal(child.exitCode, null);
    const after = await fetch(`${url}/v1/datasets/people/entities/person/records?limit=1`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    assert.equal(after.status, 200);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.match(output(), /draining/);
  });

  it('with the stdout audit sink writes only audit envelopes to stdout', async () => {
    writeFileSync(join(dir, 'people.csv'), 'id,born\n1,2001-02-03\n');
    const path = config(dir);
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace(
        'audit: { sink: jsonl, path: audit.jsonl,',
        'audit: { sink: stdout,',
      ),
    );
    const stderr = await serveWithStdoutAudit({
      args: ['relay', 'serve', '--config', path],
      env: { ...process.env, ...env },
      auditSecret: env.AUDIT_SECRET,
      call: async (url) => {
        const response = await fetch(`${url}/v1/datasets/people/entities/person/records?limit=1`, {
          headers: { authorization: `Bearer ${KEY}` },
        });
        assert.equal(response.status, 200);
        await response.text();
      },
    });
    assert.match(stderr, /listening on[\s\S]*draining/);
  });
});

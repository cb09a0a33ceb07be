// `ambit config check` on verifier configs and `ambit verifier serve` as an operator runs it (a real process,
// whose CEL workers start under the CLI's own TypeScript loader).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { ROOT, runCli } from '../helpers/run-cli.ts';
import { serveWithStdoutAudit } from '../helpers/stdout-audit-serve.ts';

const KEY = 'verifier-cli-key-00000000000000001';
const ENV = { CALLER_HASH: fingerprintOf(KEY), AUDIT_SECRET: 'cli-audit-secret-0123456789abcdef0123' };

const CONFIG = `server: { bind: 127.0.0.1:0, admin_bind: 127.0.0.1:0 }
auth:
  mode: api_key
  api_keys: [{ id: caller, fingerprint: { provider: env, name: CALLER_HASH }, scopes: [] }]
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
evidence:
  service_id: cli.verifier
  claims:
    - id: always
      title: Always true
      version: "1"
      subject_type: person
      value: { type: boolean }
      # A comprehension, so that it runs in a CEL worker (bounded expressions run on the request thread).
      rule: { type: cel, expression: "[ctx.target.type].all(t, t == 'person')" }
      disclosure: { default: predicate, allowed: [predicate] }
    - id: registered
      title: Registered
      version: "1"
      subject_type: person
      source_bindings:
        p:
          connector: registry_data_api
          connection: nowhere
          dataset: d
          entity: e
          lookup: { input: target.id, field: id }
      rule: { type: exists, source: p }
`;

describe('ambit config check (verifier)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-verifier-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'verifier.yaml');
  writeFileSync(path, CONFIG);

  it('detects a verifier config and reports its claims and warnings', async () => {
    const result = await runCli(['config', 'check', '--config', path], ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.equal(result.out[0], `ok: ${path} (verifier, 2 claims, 0 source connections, auth api_key)`);
    assert.match(result.out[1] ?? '', /warning: claim registered: source p names connection nowhere/);
  });

  it('lists every problem of a bad verifier config, and honours --kind', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, CONFIG.replace('service_id: cli.verifier', 'service_id: cli.verifier\n  sevice: x'));
    const result = await runCli(['config', 'check', '--config', bad], { ...ENV, AUDIT_SECRET: 'short' });
    assert.equal(result.code, 1);
    assert.match(result.err.join('\n'), /config\.parse_error at evidence\.sevice: unknown key `sevice`/);
    const asRelay = await runCli(['config', 'check', '--config', path, '--kind', 'relay'], ENV);
    assert.equal(asRelay.code, 1);
    assert.match(asRelay.err.join('\n'), /unknown key `evidence`/);
    const wrongKind = await runCli(['config', 'check', '--config', path, '--kind', 'notary'], ENV);
    assert.equal(wrongKind.code, 2);
  });

  it('checks a config whose `evidence` key is misspelt as a verifier config, suggesting the key', async () => {
    for (const typo of ['evidense', 'Evidence', 'evidences']) {
      const misspelt = join(dir, `${typo}.yaml`);
      writeFileSync(misspelt, CONFIG.replace('\nevidence:', `\n${typo}:`));
      const result = await runCli(['config', 'check', '--config', misspelt], ENV);
      assert.equal(result.code, 1);
      const err = result.err.join('\n');
      assert.match(err, new RegExp(`unknown key \`${typo}\` \\(did you mean \`evidence\`\\?\\)`));
      // Not the relay's keys, which a verifier config never has.
      assert.doesNotMatch(err, /catalog|datasets/);
    }
  });

  it('verifier serve refuses a bad config with every problem and exit 1', async () => {
    const result = await runCli(['verifier', 'serve', '--config', path], { CALLER_HASH: ENV.CALLER_HASH });
    assert.equal(result.code, 1);
    assert.match(result.err.join('\n'), /config\.missing_secret at audit\.hash_secret_env/);
    assert.equal((await runCli(['verifier', 'serve'], {})).code, 2);
  });

  it('verifier serve says on which line of the file each problem is, as config check does', async () => {
    const bad = join(dir, 'bad-lines.yaml');
    const text = CONFIG.replace('admin_bind: 127.0.0.1:0 }', 'admin_bind: 127.0.0.1:0, bnd: x }')
      .replace('      title: Registered\n', '      title: Registered\n      extra: 1\n')
      .replace('cli.verifier', 'cli.verifier\n  concurrency: { bindings: 0 }');
    writeFileSync(bad, text);
    const line = (needle: string) => text.split('\n').findIndex((row) => row.includes(needle)) + 1;
    const result = await runCli(['verifier', 'serve', '--config', bad], ENV);
    assert.equal(result.code, 1);
    const err = result.err.join('\n');
    assert.match(err, /^config has 3 problems:/);
    assert.match(err, new RegExp(`at server\\.bnd: .*\\(line ${line('bnd: x')}\\)`));
    assert.match(err, new RegExp(`at evidence\\.claims\\.1\\.extra: .*\\(line ${line('extra: 1')}\\)`));
    assert.match(
      err,
      new RegExp(`at evidence\\.concurrency\\.bindings: .*\\(line ${line('concurrency:')}\\)`),
    );
    // The semantic checks, after the shape is right: a missing secret is reported at the key that names it.
    const secretless = await runCli(['verifier', 'serve', '--config', path], {
      CALLER_HASH: ENV.CALLER_HASH,
    });
    assert.match(
      secretless.err.join('\n'),
      new RegExp(
        `config\\.missing_secret at audit\\.hash_secret_env: .*\\(line ${line('hash_secret_env')}\\)`,
      ),
    );
  });

  it('refuses a --bind that is the admin listener address, before listening on either', async () => {
    const clash = join(dir, 'clash.yaml');
    writeFileSync(clash, CONFIG.replace('admin_bind: 127.0.0.1:0', 'admin_bind: 127.0.0.1:18399'));
    for (const bind of ['127.0.0.1:18399', '0.0.0.0:18399']) {
      const result = await runCli(['verifier', 'serve', '--config', clash, '--bind', bind], ENV);
      assert.equal(result.code, 2, result.err.join('\n'));
      assert.match(
        result.err.join('\n'),
        new RegExp(
          `--bind ${bind} is the admin listener's address \\(server\\.admin_bind 127\\.0\\.0\\.1:18399\\)`,
        ),
      );
    }
  });

  it('exits 1 when the start fails after the CEL workers started', { timeout: 60_000 }, async () => {
    // The audit path lies under a regular file: the sink cannot open once the CEL claim's workers are running.
    writeFileSync(join(dir, 'blocker'), 'x');
    const blocked = join(dir, 'blocked.yaml');
    writeFileSync(blocked, CONFIG.replace('path: audit.jsonl', 'path: blocker/audit.jsonl'));
    const child = spawn(process.execPath, ['bin/ambit.js', 'verifier', 'serve', '--config', blocked], {
      cwd: ROOT,
      env: { ...process.env, ...ENV, AMBIT_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    assert.equal(code, 1, `the process did not exit by itself: ${output}`);
    assert.match(output, /audit\.sink_unavailable at audit\.path/);
  });

  it('serves, evaluates a CEL claim, and drains on SIGTERM', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['bin/ambit.js', 'verifier', 'serve', '--config', path], {
      cwd: ROOT,
      env: { ...process.env, ...ENV, AMBIT_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match) {
            clearInterval(timer);
            resolve(match[1] as string);
          }
        }, 50);
        child.on('exit', () => {
          clearInterval(timer);
          reject(new Error(`exited early: ${output}`));
        });
      });
      const response = await fetch(`${url}/v1/evaluations`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': KEY,
          'data-purpose': 'https://p.example/x',
        },
        body: JSON.stringify({ target: { type: 'person', id: 'p1' }, claims: ['always'] }),
      });
      const body = (await response.json()) as { results: { satisfied: boolean }[] };
      assert.equal(response.status, 200, JSON.stringify(body));
      assert.equal(body.results[0]?.satisfied, true);
      assert.match(output, /not configured; evaluations answer source\.unavailable/);
      // The admin listener, on its own port, answers that reload is a no-op.
      const admin = /admin listener on (http:\/\/\S+)/.exec(output)?.[1];
      assert.ok(admin, output);
      const reload = await fetch(`${admin}/admin/v1/reload`, {
        method: 'POST',
        headers: { 'x-api-key': KEY },
      });
      assert.equal(reload.status, 403, 'the caller key lacks verifier:admin');
      // SIGHUP (often sent to mean "reload") is said to be ignored, and the process keeps serving.
      child.kill('SIGHUP');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.match(output, /SIGHUP ignored: the verifier has nothing to reload/);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
    } finally {
      const exited = new Promise<string>((resolve) =>
        child.on('exit', (code, signal) => resolve(signal === null ? `exit ${code}` : `signal ${signal}`)),
      );
      // A second SIGTERM (a process group signalled twice) does not cut the drain short.
      child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 10));
      child.kill('SIGTERM');
      assert.equal(await exited, 'exit 0', output);
      // As the relay says it: the way out of a long drain is a second Ctrl-C.
      assert.match(output, /shutting down: draining in-flight requests \(a second Ctrl-C exits at once\)/);
    }
  });

  it('with the stdout audit sink writes only audit envelopes to stdout', { timeout: 60_000 }, async () => {
    const stdoutConfig = join(dir, 'stdout.yaml');
    writeFileSync(
      stdoutConfig,
      CONFIG.replace('audit: { sink: jsonl, path: audit.jsonl,', 'audit: { sink: stdout,'),
    );
    const stderr = await serveWithStdoutAudit({
      args: ['verifier', 'serve', '--config', stdoutConfig],
      env: { ...process.env, ...ENV, AMBIT_LOG_LEVEL: 'warn' },
      auditSecret: ENV.AUDIT_SECRET,
      call: async (url) => {
        const response = await fetch(`${url}/v1/claims`, { headers: { 'x-api-key': KEY } });
        assert.equal(response.status, 200);
      },
    });
    assert.match(stderr, /shutting down/);
  });
});

// `npm start` as a user runs it: a real process, generated keys, and the printed curl commands work as printed.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { verifyAuditChain } from '../../src/platform/audit/audit-envelope.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Curl {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  expectStatus: number | undefined;
  /** The problem `code` the note names after the status, if any. */
  expectCode: string | undefined;
}

/**
 * Reads `curl -s [-X POST] [-H "Name: value"]... [-d '<json>'] "URL"` lines back into requests; `note` is the
 * `# 400 code ...` line printed before the request, if any.
 */
function parseCurl(line: string, note: string | undefined): Curl {
  const headers: Record<string, string> = {};
  for (const match of line.matchAll(/-H "([^:]+): ([^"]+)"/g))
    headers[(match[1] as string).toLowerCase()] = match[2] as string;
  const body = /-d '([^']*)'/.exec(line)?.[1];
  const rest = line.replace(/-H "[^"]+"/g, '').replace(/-d '[^']*'/g, '');
  const url = /(https?:\/\/[^\s"]+)/.exec(rest)?.[1];
  assert.ok(url, `no URL in ${line}`);
  const expected = /^(\d{3})(?: ([a-z_]+\.[a-z_.]+))?\b/.exec(note ?? '');
  const method = body !== undefined || /-X POST/.test(rest) ? 'POST' : 'GET';
  return {
    method,
    url,
    headers,
    body,
    expectStatus: expected ? Number(expected[1]) : undefined,
    expectCode: expected?.[2],
  };
}

/** The evaluation id of a claim-result or CCCEV answer, if the body is one. */
function evaluationIdOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as {
      results?: { evaluation_id?: string }[];
      '@graph'?: { 'dcterms:identifier'?: string }[];
    };
    return parsed.results?.[0]?.evaluation_id ?? parsed['@graph']?.[0]?.['dcterms:identifier'];
  } catch {
    return undefined;
  }
}

describe('demo (npm start)', () => {
  let child: ChildProcess;
  let output = '';
  const state = mkdtempSync(join(tmpdir(), 'ambit-demo-'));

  before(async () => {
    child = spawn(process.execPath, ['bin/ambit.js', 'demo'], {
      cwd: ROOT,
      env: {
        ...process.env,
        AMBIT_RELAY_BIND: '127.0.0.1:0',
        AMBIT_VERIFIER_BIND: '127.0.0.1:0',
        AMBIT_VERIFIER_ADMIN_BIND: '127.0.0.1:0',
        AMBIT_DEMO_STATE_DIR: state,
      },
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

  it('links and the OpenAPI servers name the address the relay bound, not the default port', async () => {
    const url = /Ambit Relay demo listening on (http:\/\/\S+)/.exec(output)?.[1];
    assert.ok(url, output);
    assert.notEqual(url, 'http://127.0.0.1:4242', 'AMBIT_RELAY_BIND asked for any free port');
    const key = /AMBIT_DEMO_CATALOG_VIEWER_KEY=(\S+)/.exec(
      readFileSync(join(state, 'demo-keys.env'), 'utf8'),
    )?.[1];
    const headers = { authorization: `Bearer ${key}` };
    const openapi = (await (await fetch(`${url}/openapi.json`, { headers })).json()) as {
      servers: { url: string }[];
    };
    assert.deepEqual(openapi.servers, [{ url }]);
    const datasets = await (await fetch(`${url}/v1/datasets`, { headers })).text();
    assert.ok(datasets.includes(`"${url}/v1/datasets`), datasets.slice(0, 500));
    assert.ok(!datasets.includes('127.0.0.1:4242'), 'a link names the default port');
  });

  /** Body of each printed request, by the note printed before it, for the checks below. */
  const answers = new Map<string, unknown>();

  it('every printed curl command works as printed', async () => {
    // Each request with the `# note` line just before it, if any.
    const printed = output.split('\n').map((line) => line.trim());
    const lines = printed.filter((line) => line.startsWith('curl '));
    assert.ok(lines.length >= 6, output);
    assert.ok(
      lines.some((line) => line.includes('/v1/evaluations')),
      'the banner shows verifier requests',
    );
    // A line may render the evaluation answered just before it: EVALUATION_ID stands for that evaluation's id.
    let lastEvaluationId = '';
    let codesChecked = 0;
    for (const [index, line] of printed.entries()) {
      if (!line.startsWith('curl ')) continue;
      const comment = /^#\s*(.+)$/.exec(printed[index - 1] ?? '')?.[1];
      const curl = parseCurl(line.replace('EVALUATION_ID', lastEvaluationId), comment);
      const response = await fetch(curl.url, {
        method: curl.method,
        headers: curl.headers,
        ...(curl.body === undefined ? {} : { body: curl.body }),
      });
      const body = await response.text();
      assert.equal(response.status, curl.expectStatus ?? 200, `${line}\n${body}`);
      // A note that names a problem code: the answer carries that code, not only that status.
      if (curl.expectCode !== undefined) {
        assert.equal(JSON.parse(body).code, curl.expectCode, `${line}\n${body}`);
        codesChecked += 1;
      }
      if (curl.expectStatus === undefined) assert.ok(body.length > 2, `empty body for ${line}`);
      if (comment !== undefined) answers.set(comment, JSON.parse(body));
      lastEvaluationId = evaluationIdOf(body) ?? lastEvaluationId;
    }
    assert.ok(codesChecked >= 5, `${codesChecked} printed problem codes checked`);
  });

  it('the verifier examples show each rule, disclosure level, the composite claim, CCCEV and a replayed batch', () => {
    type Result = {
      value: unknown;
      satisfied: unknown;
      disclosure: string;
      provenance: { used: { source_count: number } };
    };
    const result = (prefix: string): Result => {
      const found = [...answers].find(([comment]) => comment.startsWith(prefix));
      assert.ok(found, `no printed example "${prefix}"`);
      return (found[1] as { results: Result[] }).results[0] as Result;
    };
    const alive = result('cel; predicate');
    assert.deepEqual([alive.value, alive.satisfied, alive.disclosure], [true, true, 'predicate']);
    assert.equal(result('exists').satisfied, true);
    assert.match(String(result('extract; disclosure value').value), /^\d{4}-\d{2}-\d{2}$/);
    const redacted = result('extract; redacted');
    assert.deepEqual([redacted.value, redacted.disclosure], [null, 'redacted']);
    const composite = result('composite over two datasets');
    assert.equal(composite.satisfied, true);
    assert.equal(composite.provenance.used.source_count, 2);
    assert.equal(result('satisfied false').satisfied, false);
    const cccev = [...answers].find(([comment]) => comment.startsWith('CCCEV'))?.[1] as {
      '@context': Record<string, string>;
      '@graph': { '@type': string }[];
    };
    assert.equal(cccev['@context'].cccev, 'http://data.europa.eu/m8g/');
    assert.deepEqual(
      cccev['@graph'].map((node) => node['@type']),
      ['cccev:Evidence', 'cccev:Evidence'],
    );
    // The render answers the stored CCCEV evaluation byte for byte in content: same nodes, same ids.
    const rendered = [...answers].find(([comment]) => comment.startsWith('the stored CCCEV'))?.[1];
    assert.deepEqual(rendered, cccev);
    // The batch answers per person (alive, then a death registered); sent again with its key, the same answer.
    const batch = [...answers].find(([comment]) => comment.startsWith('batch:'))?.[1] as {
      batch_id: string;
      items: { status: string; claim_results: { satisfied: unknown }[] }[];
    };
    assert.deepEqual(
      batch.items.map((item) => [item.status, item.claim_results[0]?.satisfied]),
      [
        ['succeeded', true],
        ['succeeded', false],
      ],
    );
    const replayed = [...answers].find(([comment]) => comment.startsWith('the same batch again'))?.[1];
    assert.deepEqual(replayed, batch);
    // A key without a verifier scope is shown no claim at all, the plugin claim (which reads nothing) included.
    const unscoped = [...answers].find(([comment]) => comment.startsWith('discovery without'))?.[1] as {
      data: unknown[];
    };
    assert.deepEqual(unscoped.data, []);
    const reload = [...answers].find(([comment]) => comment.startsWith('a no-op'))?.[1];
    assert.deepEqual(reload, {
      reloaded: false,
      status: 'noop',
      detail: 'The verifier does not reload: key and configuration changes need a restart.',
    });
  });

  it('the verifier writes its own audit chain, without identifiers or keys', () => {
    const text = readFileSync(join(state, 'verifier-audit.jsonl'), 'utf8');
    const secret = /AMBIT_DEMO_AUDIT_SECRET=(\S+)/.exec(
      readFileSync(join(state, 'demo-keys.env'), 'utf8'),
    )?.[1];
    const chain = verifyAuditChain(text.trim().split('\n'), Buffer.from(secret as string), null);
    assert.ok(chain.ok, JSON.stringify(chain));
    const records = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).record as Record<string, unknown>);
    assert.ok(records.some((record) => record.decision === 'evaluate' && record.source_count === 2));
    assert.ok(records.some((record) => record.endpoint_kind === 'admin' && record.status === 200));
    for (const secretValue of ['FAKE-937193', 'per-10053'])
      assert.ok(!text.includes(secretValue), secretValue);
    const keys = readFileSync(join(state, 'demo-keys.env'), 'utf8');
    for (const name of ['CASEWORKER_KEY', 'OPERATOR_KEY', 'VERIFIER_SERVICE_KEY']) {
      const value = new RegExp(`AMBIT_DEMO_${name}=(\\S+)`).exec(keys)?.[1];
      // A key missing from the file must fail here, not make the check below vacuous.
      assert.match(value ?? '', /^[A-Za-z0-9_-]{43}$/, name);
      assert.ok(!text.includes(value as string), name);
    }
  });

  it('writes a verifiable audit trail', async () => {
    const audit = readFileSync(join(state, 'audit.jsonl'), 'utf8').trim().split('\n');
    assert.ok(audit.length >= 5);
    const last = JSON.parse(audit.at(-1) as string);
    assert.match(last.record_hash, /^[0-9a-f]{64}$/);
    const key = /AMBIT_DEMO_CASEWORKER_KEY=(\S+)/.exec(
      readFileSync(join(state, 'demo-keys.env'), 'utf8'),
    )?.[1];
    assert.match(key ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.ok(!readFileSync(join(state, 'audit.jsonl'), 'utf8').includes(key as string));
  });

  it('stops on SIGTERM once started: says it drains, and exits 0', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
    assert.match(output, /shutting down: draining in-flight requests \(a second Ctrl-C exits at once\)\n$/);
  });
});

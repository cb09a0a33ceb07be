// The scripted wrk requests reach the server as written (a Lua syntax slip makes wrk silently send `GET /`), and
// the summary pairs each evaluate run with the relay read of the same round.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { EvaluateResults, MeasuredRun } from './render-evaluate-results.ts';
import { summarize } from './render-evaluate-results.ts';
import { writeRequestScript } from './write-request-script.ts';

describe('writeRequestScript', () => {
  it('sends each request in turn with its method, headers and body', async () => {
    const seen: { method: string; url: string; key: string | undefined; body: string }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        seen.push({
          method: request.method ?? '',
          url: request.url ?? '',
          key: request.headers['x-api-key'] as string,
          body,
        });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'ambit-wrk-script-'));
    try {
      const script = join(dir, 'requests.lua');
      // A body closing a level-0 long bracket must still arrive intact.
      const bodies = ['{"a":[["x"]]}', '{"b":"]]=]"}'];
      writeRequestScript(script, {
        method: 'POST',
        headers: { 'x-api-key': 'k]]ey' },
        paths: ['/one?x=1', '/two'],
        bodies,
      });
      const port = (server.address() as AddressInfo).port;
      await promisify(execFile)('wrk', ['-t1', '-c1', '-d1s', '-s', script, `http://127.0.0.1:${port}/`]);
      assert.ok(seen.length >= 4, `wrk sent ${seen.length} requests`);
      const expected = [
        { method: 'POST', url: '/one?x=1', key: 'k]]ey', body: bodies[0] },
        { method: 'POST', url: '/two', key: 'k]]ey', body: bodies[1] },
      ];
      // wrk may consume one request before the first one it sends; after that the two alternate.
      const first = expected.findIndex((request) => request.url === seen[0]?.url);
      assert.ok(first >= 0, JSON.stringify(seen[0]));
      for (const [index, request] of seen.entries()) assert.deepEqual(request, expected[(first + index) % 2]);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('summarize', () => {
  const run = (round: number, rps: number, cpu: number): MeasuredRun => ({
    round,
    rps,
    requests: rps * 5,
    latencyP50Ms: 1,
    latencyP99Ms: 2,
    cpuUsPerRequest: cpu,
  });
  const results = {
    scenarios: [
      {
        name: 'relay-read',
        description: '',
        request: '',
        runs: [run(1, 1000, 300), run(2, 500, 320), run(3, 800, 310)],
      },
      {
        name: 'evaluate-extract',
        description: '',
        request: '',
        runs: [run(1, 500, 700), run(2, 150, 800), run(3, 300, 750)],
      },
    ],
  } as unknown as EvaluateResults;

  it('takes the median of same-round ratios, not the ratio of medians', () => {
    const summary = summarize(results, 'evaluate-extract');
    assert.ok(summary);
    assert.deepEqual(summary.ratios, [0.5, 0.3, 0.375]);
    assert.equal(summary.ratio, 0.375);
    assert.equal(summary.met, false);
    assert.equal(summary.cpuRatio, 310 / 750);
    assert.equal(summarize(results, 'relay-read'), undefined);
  });
});

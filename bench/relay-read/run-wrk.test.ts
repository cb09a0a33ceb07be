// Tests for the bench's report parsing: wrk output, failed-run detection, perf output and the Lua header script.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parsePerfInstructions } from './count-process-work.ts';
import { parseWrkOutput, runProblem, writeHeaderScript } from './run-wrk.ts';

const CLEAN = `Running 5s test @ http://127.0.0.1:41234/v1/datasets/bench/entities/records/records?limit=100
  1 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.52ms    1.10ms  21.30ms   90.00%
    Req/Sec     2.85k   210.00     3.10k    70.00%
  Latency Distribution
     50%  341.00us
     75%    3.90ms
     90%    4.50ms
     99%    1.20s
  14250 requests in 5.00s, 290.12MB read
Requests/sec:   2849.91
Transfer/sec:     58.02MB
`;

const WITH_ERRORS = `Running 1s test @ http://127.0.0.1:45123/bad
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   627.84us    2.16ms  28.45ms   96.07%
    Req/Sec    10.18k     5.45k   16.71k    60.00%
  Latency Distribution
     50%  141.00us
     75%  298.00us
     90%    1.18ms
     99%   12.69ms
  10123 requests in 1.00s, 1.37MB read
  Socket errors: connect 0, read 3, write 0, timeout 2
  Non-2xx or 3xx responses: 10123
Requests/sec:  10119.42
Transfer/sec:      1.37MB
`;

describe('parseWrkOutput', () => {
  it('reads requests, duration, throughput and latency percentiles in milliseconds', () => {
    const result = parseWrkOutput(CLEAN);
    assert.equal(result.requests, 14250);
    assert.equal(result.seconds, 5);
    assert.equal(result.rps, 2849.91);
    assert.equal(result.latencyP50Ms, 0.341);
    assert.equal(result.latencyP99Ms, 1200);
    assert.equal(result.non2xx3xx, 0);
    assert.deepEqual(result.socketErrors, { connect: 0, read: 0, write: 0, timeout: 0 });
    assert.equal(runProblem(result), undefined);
  });

  it('reports error responses and socket errors, which fail the run', () => {
    const result = parseWrkOutput(WITH_ERRORS);
    assert.equal(result.non2xx3xx, 10123);
    assert.deepEqual(result.socketErrors, { connect: 0, read: 3, write: 0, timeout: 2 });
    assert.equal(runProblem(result), '10123 non-2xx/3xx responses');
    const socketOnly = { ...result, non2xx3xx: 0 };
    assert.equal(runProblem(socketOnly), 'socket errors: connect 0, read 3, write 0, timeout 2');
  });

  it('fails a run that completed no request', () => {
    const result = parseWrkOutput(CLEAN.replace('14250 requests', '0 requests'));
    assert.equal(runProblem(result), 'no request completed');
  });

  it('rejects output it does not recognise instead of reporting zeros', () => {
    assert.throws(
      () => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused'),
      /unrecognised/,
    );
  });
});

describe('parsePerfInstructions', () => {
  it('reads the count from perf stat -x, output', () => {
    const text = '# started on Sun Nov 22\n\n123456789,,instructions,5000123456,100.00,,\n';
    assert.equal(parsePerfInstructions(text), 123456789);
    assert.equal(parsePerfInstructions('987,,instructions:u,10,100.00,,'), 987);
  });

  it('treats an unsupported or uncounted event as unavailable', () => {
    assert.equal(parsePerfInstructions('<not supported>,,instructions,0,100.00,,'), undefined);
    assert.equal(parsePerfInstructions('<not counted>,,instructions,0,0.00,,'), undefined);
    assert.equal(parsePerfInstructions(''), undefined);
  });
});

describe('writeHeaderScript', () => {
  it('writes each header as a Lua long-bracket string, quotes included verbatim', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ambit-bench-wrk-'));
    try {
      const path = join(dir, 'headers.lua');
      writeHeaderScript(path, { authorization: 'Bearer abc', 'if-none-match': '"sha256:00ff"' });
      assert.equal(
        readFileSync(path, 'utf8'),
        'wrk.headers[ [[authorization]] ] = [[Bearer abc]]\nwrk.headers[ [[if-none-match]] ] = [["sha256:00ff"]]\n',
      );
      assert.throws(() => writeHeaderScript(path, { x: 'a]]b' }), /cannot be quoted/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

// The runner is started as a user starts it: without the variable that tells node:test it runs inside
// another test run (with it, the inner run would report in the outer run's private format).
const { NODE_TEST_CONTEXT: _, ...env } = process.env;
const run = (target: string, extraEnv: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['scripts/run-tests.js', target], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...env, ...extraEnv },
  });

describe('the test runner (scripts/run-tests.js)', () => {
  it('repeats each failing test with its suites and diagnostics after the run, and exits 1', () => {
    const result = run('test/fixtures/test-runner/failing-tests.fixture.ts');
    assert.equal(result.status, 1);
    const marker = '# failing tests (repeated from above)';
    const at = result.stdout.lastIndexOf(marker);
    assert.ok(at > result.stdout.indexOf('# fail 1'), 'the repeat comes after the totals');
    const tail = result.stdout.slice(at);
    assert.match(tail, /# in: outer suite\n# in: inner suite\nnot ok \d+ - compares two numbers\n {2}---\n/);
    assert.match(tail, /expected: 3\n {2}actual: 2\n/);
    assert.match(
      tail,
      /# in: suite with a broken hook\n(?:[^\n]*\n)*?not ok \d+ - suite with a broken hook\n/,
    );
    assert.match(tail, /error: 'hook broke on purpose'/);
    // A suite that failed only through its tests is not repeated, nor is anything that passed.
    assert.doesNotMatch(tail, /not ok \d+ - (outer suite|inner suite)\n/);
    assert.doesNotMatch(tail, /passes quietly/);
  });

  it('adds nothing after a run where everything passed, and exits 0', () => {
    const result = run('scripts/../test/fixtures/test-runner/passing-test.fixture.ts');
    assert.equal(result.status, 0, result.stdout);
    assert.match(result.stdout, /# pass 1\n/);
    assert.doesNotMatch(result.stdout, /failing tests/);
  });

  it('fails a test file that never ends, by name, once the time limit per file has passed', () => {
    const result = run('test/fixtures/test-runner/hung-test.fixture.ts', { AMBIT_TEST_TIMEOUT_MS: '1000' });
    assert.equal(result.status, 1, result.stdout);
    const tail = result.stdout.slice(result.stdout.lastIndexOf('# failing tests'));
    assert.match(tail, /not ok \d+ - \S*test\/fixtures\/test-runner\/hung-test\.fixture\.ts\n/);
    assert.match(tail, /test timed out after 1000ms/);
  });
});

// For tests that guard against a hang (a pattern or loop whose cost grows faster than its input): the script runs
// in a process of its own, stopped after 20 s (or the limit given: a script that starts services of its own needs
// longer on a busy machine). Finishing at all is the check; the time taken is never asserted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/**
 * Runs an ES module script through tsx, with `flags` for node (such as a heap limit for a script guarding against
 * an allocation); fails the test when it is stopped; returns its standard output.
 */
export function runToEnd(script: string, flags: readonly string[] = [], limitMs = 20_000): string {
  const run = spawnSync(
    process.execPath,
    [...flags, '--import', 'tsx', '--input-type=module', '-e', script],
    {
      timeout: limitMs,
      encoding: 'utf8',
    },
  );
  assert.equal(run.signal, null, 'the script did not finish');
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

// `ambit relay serve` and `ambit verifier serve` stopped by SIGTERM while they start (loading a table, preparing
// the state store) against a database that never answers: the start stops, what it opened is closed (the audit
// file flushed, every database connection gone, the workers included) and the process exits as a drain does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runToEnd } from '../helpers/run-to-end.ts';
import { RECORDS, type StopCase, type StopOutcome } from './stop-while-starting.ts';

const SCENARIO = new URL('./stop-while-starting.ts', import.meta.url).href;

function stopWhileStarting(which: StopCase): StopOutcome {
  const script = `import { stopWhileStarting } from ${JSON.stringify(SCENARIO)};
    process.stdout.write(JSON.stringify(await stopWhileStarting(${JSON.stringify(which)})));`;
  return JSON.parse(runToEnd(script, [], 90_000)) as StopOutcome;
}

/** Said once (a worker stopped says nothing), and neither a start nor a failure. */
function assertStoppedOnce(output: string): void {
  assert.equal(output.match(/shutting down: stopped while starting\n/g)?.length, 1, output);
  assert.doesNotMatch(output, /listening on|startup failed|draining/);
}

describe('serve commands stopped while starting', () => {
  it('relay: stops loading, flushes the audit record of a read refused meanwhile, and exits 0', () => {
    const outcome = stopWhileStarting('relay');
    assert.equal(outcome.signal, null, outcome.output);
    assert.equal(outcome.code, 0, outcome.output);
    assertStoppedOnce(outcome.output);
    assert.equal(outcome.readStatus, 503);
    assert.equal(outcome.auditLines.length, 1);
    const { record } = JSON.parse(outcome.auditLines[0] as string);
    assert.equal(record.path, RECORDS);
    assert.equal(record.status_code, 503);
  });

  it('relay --workers 2: stops every worker, says so once, and exits 0', () => {
    const outcome = stopWhileStarting('relay --workers 2');
    assert.equal(outcome.signal, null, outcome.output);
    assert.equal(outcome.code, 0, outcome.output);
    assertStoppedOnce(outcome.output);
    assert.equal(outcome.connections, 2);
  });

  it('verifier: stops preparing the state store and exits 0', () => {
    const outcome = stopWhileStarting('verifier');
    assert.equal(outcome.signal, null, outcome.output);
    assert.equal(outcome.code, 0, outcome.output);
    assertStoppedOnce(outcome.output);
  });
});

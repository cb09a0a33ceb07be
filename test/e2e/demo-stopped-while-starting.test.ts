// `ambit demo` (npm start) stopped by SIGTERM or SIGINT (Ctrl-C) while it starts against a database that never answers:
// the start stops, what it opened is closed (the audit file flushed) and the process exits as after a drain,
// rather than being ended on the spot by Node's default action.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runToEnd } from '../helpers/run-to-end.ts';
import { type DemoStopCase, type DemoStopOutcome, HOUSEHOLDS } from './demo-stop-while-starting.ts';

const SCENARIO = new URL('./demo-stop-while-starting.ts', import.meta.url).href;

function demoStopWhileStarting(which: DemoStopCase, signal = 'SIGTERM'): DemoStopOutcome {
  const script = `import { demoStopWhileStarting } from ${JSON.stringify(SCENARIO)};
    const outcome = await demoStopWhileStarting(${JSON.stringify(which)}, ${JSON.stringify(signal)});
    process.stdout.write(JSON.stringify(outcome));`;
  return JSON.parse(runToEnd(script, [], 90_000)) as DemoStopOutcome;
}

/** Said once, and neither a start nor a failure. */
function assertStoppedOnce(output: string): void {
  assert.equal(output.match(/shutting down: stopped while starting\n/g)?.length, 1, output);
  assert.doesNotMatch(output, /listening on|startup failed|could not prepare|Press Ctrl/);
}

describe('demo stopped while starting', () => {
  it('while seeding schema ambit_demo: stops waiting for the database and exits 0', () => {
    const outcome = demoStopWhileStarting('seeding');
    assert.equal(outcome.signal, null, outcome.output);
    assert.equal(outcome.code, 0, outcome.output);
    assertStoppedOnce(outcome.output);
    assert.equal(outcome.connections, 1);
    // Only the keys, written whole before the start; no audit file was opened yet.
    assert.deepEqual(outcome.files, ['demo-keys.env']);
  });

  it('on SIGHUP (the terminal closed) as on SIGTERM, not ended on the spot', () => {
    const outcome = demoStopWhileStarting('seeding', 'SIGHUP');
    assert.equal(outcome.signal, null, outcome.output);
    assert.equal(outcome.code, 0, outcome.output);
    assertStoppedOnce(outcome.output);
  });

  it('while the relay loads the seeded table: flushes the audit record of a read refused meanwhile, exits 0', () => {
    const outcome = demoStopWhileStarting('loading');
    assert.equal(outcome.signal, null, outcome.output);
    assert.equal(outcome.code, 0, outcome.output);
    assertStoppedOnce(outcome.output);
    assert.equal(outcome.readStatus, 503);
    assert.equal(outcome.auditLines.length, 1, outcome.output);
    const { record } = JSON.parse(outcome.auditLines[0] as string);
    assert.equal(record.path, HOUSEHOLDS);
    assert.equal(record.status_code, 503);
  });
});

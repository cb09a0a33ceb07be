// `npm start` run a second time while the first demo still runs (a second terminal): the second one stops at once
// and says so in the demo's own terms, not as a problem in a config the user never wrote.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startDemo } from '../helpers/demo-env.ts';

describe('a second demo over the same state folder', () => {
  let state: string;
  let first: ReturnType<typeof startDemo>;

  before(async () => {
    state = mkdtempSync(join(tmpdir(), 'ambit-demo-twice-'));
    first = startDemo(state, 'Press Ctrl+C');
    await first.shown;
    assert.match(first.output.stdout, /Press Ctrl\+C/, first.output.stderr);
  });

  after(async () => {
    if (first.child.exitCode === null) {
      first.child.kill('SIGINT');
      await first.exited;
    }
    rmSync(state, { recursive: true, force: true });
  });

  it('says the demo is already running and how to start another, not a config problem', async () => {
    const second = startDemo(state, 'Press Ctrl+C');
    assert.equal(await second.exited, 1);
    assert.equal(second.output.stdout, '');
    assert.equal(
      second.output.stderr,
      `is the demo already running? Its audit files in ${state} are in use by another process; stop it, or ` +
        'start this one with its own AMBIT_DEMO_STATE_DIR (and AMBIT_RELAY_BIND, AMBIT_VERIFIER_BIND, ' +
        'AMBIT_VERIFIER_ADMIN_BIND: host:port; port 0 picks a free one)\n',
    );
    assert.equal(first.child.exitCode, null, 'the first demo still runs');
  });
});

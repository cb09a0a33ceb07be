import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { demoStateDir } from './demo-state-dir.ts';

describe('the demo state folder', () => {
  const cwd = '/home/user/somewhere';
  const demoDir = '/opt/ambit/demo';

  it('is demo/var unless AMBIT_DEMO_STATE_DIR names another; empty counts as unset, as in the configs', () => {
    assert.equal(demoStateDir({}, cwd, demoDir), join(demoDir, 'var'));
    assert.equal(demoStateDir({ AMBIT_DEMO_STATE_DIR: '' }, cwd, demoDir), join(demoDir, 'var'));
    assert.equal(demoStateDir({ AMBIT_DEMO_STATE_DIR: '/srv/state' }, cwd, demoDir), '/srv/state');
  });

  it('reads a relative AMBIT_DEMO_STATE_DIR from the working directory, where the user typed it', () => {
    assert.equal(demoStateDir({ AMBIT_DEMO_STATE_DIR: 'state' }, cwd, demoDir), `${cwd}/state`);
    assert.equal(demoStateDir({ AMBIT_DEMO_STATE_DIR: '../state/' }, cwd, demoDir), '/home/user/state');
  });
});

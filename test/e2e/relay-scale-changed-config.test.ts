// `ambit relay serve --workers 2` whose config file is edited while it runs, then a worker dies: the worker started
// again must not serve the edited config beside workers serving the one the relay started with (other keys and
// scopes, other table versions). It refuses to start, says why, and starts once the file is as it was.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { call, PEOPLE, until, useServedWorkers, workerPids } from './relay-scale-fixture.ts';

const READER_SCOPES = '["people:metadata","people:rows","people:aggregate"]';

describe('ambit relay serve --workers 2 when its config file changes and a worker dies', () => {
  const served = useServedWorkers({ env: { AMBIT_LOG_LEVEL: 'info' } });

  const gauge = async (name: string) => {
    const metrics = await call(`${served.relay.adminUrl}/metrics`, { as: 'metrics_only' });
    const line = metrics.body.split('\n').find((candidate) => candidate.startsWith(`${name} `));
    return Number(line?.split(' ').pop());
  };

  it('does not start the worker again on the edited config, and does once the file is restored', async () => {
    const original = readFileSync(served.fixture.configPath, 'utf8');
    assert.ok(original.includes(READER_SCOPES));
    // The reader loses the right to read rows in the file; the running relay keeps the config it started with.
    writeFileSync(served.fixture.configPath, original.replace(READER_SCOPES, '["people:metadata"]'));
    const [first] = workerPids(served.relay);
    process.kill(first as number, 'SIGKILL');
    await until(
      () => /restart failed; trying again|relay worker started again/.test(served.relay.output()),
      'the worker was started again',
    );
    assert.doesNotMatch(served.relay.output(), /relay worker started again/);
    assert.match(served.relay.output(), /config differs from the one the relay started with/);
    for (let i = 0; i < 6; i++) {
      const answer = await call(`${served.relay.url}${PEOPLE}?limit=1`, { as: 'reader' });
      assert.equal(answer.status, 200, answer.body);
    }

    writeFileSync(served.fixture.configPath, original);
    await until(async () => (await gauge('ambit_relay_processes')) === 2, 'the worker is back', true);
    for (let i = 0; i < 6; i++) {
      const answer = await call(`${served.relay.url}${PEOPLE}?limit=1`, { as: 'reader' });
      assert.equal(answer.status, 200, answer.body);
    }
  });
});

// `ambit relay serve --workers 2` whose config file is edited while it runs, then a worker dies: the worker started
// again must not serve the edited config beside workers serving the one the relay started with (other keys and
// scopes, other table versions). It refuses to start, says why, and starts once the file is as it was. A file
// edited into one that is not a valid config is refused the same way: the primary logs why, the worker prints nothing.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createReloadFixture, type ReloadFixture } from '../relay/reload-fixture.ts';
import {
  call,
  PEOPLE,
  type Served,
  serve,
  until,
  useServedWorkers,
  workerPids,
} from './relay-scale-fixture.ts';
import { freePort } from './stop-while-starting.ts';

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

  it('logs why a worker cannot start again on a config edited into an invalid one, and the worker prints nothing', async () => {
    const original = readFileSync(served.fixture.configPath, 'utf8');
    const before = served.relay.output().length;
    const since = () => served.relay.output().slice(before);
    writeFileSync(served.fixture.configPath, original.replace('mode: api_key', 'mode: no_such_mode'));
    try {
      const [first] = workerPids(served.relay);
      process.kill(first as number, 'SIGKILL');
      await until(() => /restart failed; trying again/.test(since()), 'the restart failed');
      const failed = since()
        .split('\n')
        .find((line) => line.includes('restart failed; trying again'));
      // The reason is in the primary's structured log line, with the code and path.
      assert.match(String(failed), /"err_message":"config\.validation_error at auth\.mode: /);
      // Not printed again, unstructured, by the worker at every attempt.
      assert.doesNotMatch(since(), /config has \d+ problem/);
    } finally {
      writeFileSync(served.fixture.configPath, original);
    }
    await until(async () => (await gauge('ambit_relay_processes')) === 2, 'the worker is back', true);
  });
});

describe('ambit relay serve --workers 2 --bind, its admin_bind edited onto that address', () => {
  let fixture: ReloadFixture;
  let relay: Served;
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    relay = await serve(fixture, ['--workers', '2', '--bind', `127.0.0.1:${await freePort()}`], {
      AMBIT_LOG_LEVEL: 'info',
    });
  });
  after(async () => {
    await relay?.stop();
    fixture?.remove();
  });

  it('refuses the worker through the primary, which says the config differs; the worker prints nothing', async () => {
    const original = readFileSync(fixture.configPath, 'utf8');
    const bind = /--bind (\S+)/.exec(relay.child.spawnargs.join(' '))?.[1] as string;
    const before = relay.output().length;
    const since = () => relay.output().slice(before);
    writeFileSync(fixture.configPath, original.replace('admin_bind: 127.0.0.1:0', `admin_bind: ${bind}`));
    try {
      const [first] = workerPids(relay);
      process.kill(first as number, 'SIGKILL');
      await until(() => /restart failed; trying again/.test(since()), 'the restart failed');
      assert.match(since(), /config differs from the one the relay started with/);
      assert.doesNotMatch(since(), /is the admin listener's address/);
    } finally {
      writeFileSync(fixture.configPath, original);
    }
  });
});

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createReloadFixture, type ReloadFixture, reloadEnv } from '../../test/relay/reload-fixture.ts';
import { systemClock } from '../platform/clock.ts';
import { silentLogger } from '../platform/log.ts';
import { systemRandom } from '../platform/random.ts';
import { loadRelayConfig } from './config/load-relay-config.ts';
import { SourceError } from './sources/source-error.ts';
import { startRelay } from './start-relay.ts';

const deps = { logger: silentLogger(), clock: systemClock, random: systemRandom };

describe('startRelay with loadBeforeListening', () => {
  let fixture: ReloadFixture;
  // A port already taken: trying to listen on it fails, so which error a start ends with tells whether it listened.
  let taken: Server;
  let bind: string;
  before(async () => {
    fixture = createReloadFixture();
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    assert.ok(typeof address === 'object' && address);
    bind = `127.0.0.1:${address.port}`;
  });
  after(async () => {
    await new Promise((resolve) => taken.close(resolve));
    fixture.remove();
  });

  const start = (loadBeforeListening: boolean, at = bind) =>
    startRelay(loadRelayConfig(fixture.configPath, reloadEnv()), deps, at, {
      adminListener: false,
      loadBeforeListening,
    });

  it('loads the sources before it listens: a failed load ends the start before the port is tried', async () => {
    fixture.writePeople('id,district,born\n1,a,2001-02-30\n');
    await assert.rejects(start(false), { code: 'EADDRINUSE' });
    await assert.rejects(start(true), (error) => error instanceof SourceError);
  });

  it('answers ready from its first request', async () => {
    fixture.writePeople('id,district,born\n1,a,2001-02-03\n');
    const running = await start(true, '127.0.0.1:0');
    try {
      const ready = await fetch(`${running.url}/ready`);
      assert.equal(ready.status, 200);
    } finally {
      await running.close();
    }
  });
});

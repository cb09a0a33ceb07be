// Shutting a relay down: SIGTERM or SIGINT, to the primary or to its whole process group, lets an in-flight request
// finish while new connections are refused; workers that exit while the admin listener drains are not started
// again; a hung worker does not hold the primary forever; a second SIGINT cuts.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createReloadFixture, RELOAD_KEYS, type ReloadFixture } from '../relay/reload-fixture.ts';
import { type Served, serve, until, workerPids } from './relay-scale-fixture.ts';

const QUERY = '/v1/datasets/people/aggregates/people_by_district/query';

/** How a shutdown is asked for: the primary alone, or every process of the group at once. */
const SHUTDOWNS = [
  { workers: 1, how: 'SIGTERM', send: (relay: Served) => relay.signal('SIGTERM') },
  { workers: 2, how: 'SIGTERM to the primary', send: (relay: Served) => relay.signal('SIGTERM') },
  // systemd's default KillMode=control-group: each worker is signalled, then signalled again by its primary.
  {
    workers: 2,
    how: 'SIGTERM to the primary and its workers at once',
    send: (relay: Served) => relay.signal('SIGTERM', true),
  },
  // Ctrl-C in a terminal signals the whole foreground process group.
  {
    workers: 2,
    how: 'SIGINT to the primary and its workers at once',
    send: (relay: Served) => relay.signal('SIGINT', true),
  },
];

for (const { workers, how, send } of SHUTDOWNS) {
  describe(`graceful shutdown (${workers === 1 ? 'one process' : `${workers} workers`}, ${how})`, () => {
    let fixture: ReloadFixture;
    let relay: Served;
    before(async () => {
      fixture = createReloadFixture();
      relay = await serve(fixture, ['--workers', String(workers)], {}, true);
    });
    after(async () => {
      await relay.stop();
      fixture.remove();
    });

    it('lets an in-flight request finish while refusing new connections, then exits 0', async () => {
      const slow = await startSlowRequest(relay.url);
      send(relay);
      const { hostname, port } = new URL(relay.url);
      await until(() => refused(Number(port), hostname), 'new connections are refused', true);
      const answer = await slow.finish();
      assert.equal(answer.status, '200', answer.received);
      assert.match(answer.received, /"people"/);
      assert.equal(await relay.exited, 0);
    });
  });
}

describe('graceful shutdown (2 workers, SIGTERM to the group while an admin request is in flight)', () => {
  it('does not start the exited workers again, answers the admin request, then exits 0', async () => {
    const fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    const relay = await serve(fixture, ['--workers', '2'], {}, true);
    try {
      const workers = workerPids(relay);
      const slow = await startSlowRequest(relay.adminUrl as string, '/admin/v1/reload', RELOAD_KEYS.operator);
      relay.signal('SIGTERM', true);
      // The workers drain nothing and exit while the primary still waits for the admin request.
      await until(() => workers.every((pid) => !alive(pid)), 'the workers have exited', true);
      const answer = await slow.finish();
      // No worker is left to run it: a retryable problem, not a cut connection.
      assert.equal(answer.status, '503', answer.received);
      assert.match(answer.received, /"code":"schema\.resource_unavailable"/);
      assert.equal(await relay.exited, 0);
      assert.doesNotMatch(relay.output(), /starting it again|started again/);
    } finally {
      await relay.stop();
      fixture.remove();
    }
  });
});

describe('graceful shutdown (2 workers, SIGTERM to the primary while an admin request is in flight)', () => {
  it('refuses new public connections at once, answers the admin request, then exits 0', async () => {
    const fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    const relay = await serve(fixture, ['--workers', '2']);
    try {
      const slow = await startSlowRequest(relay.adminUrl as string, '/admin/v1/reload', RELOAD_KEYS.operator);
      relay.signal('SIGTERM');
      const { hostname, port } = new URL(relay.url);
      await until(() => refused(Number(port), hostname), 'new public connections are refused', true);
      const answer = await slow.finish();
      assert.equal(answer.status, '503', answer.received);
      assert.match(answer.received, /"code":"schema\.resource_unavailable"/);
      assert.match(answer.received, /retry-after: 5/i);
      assert.equal(await relay.exited, 0);
    } finally {
      await relay.stop();
      fixture.remove();
    }
  });
});

describe('graceful shutdown (2 workers, one of them hung)', () => {
  it('kills the hung worker once the drain is over, then exits 0', { timeout: 120_000 }, async () => {
    const fixture = createReloadFixture();
    // A short request timeout: the drain lasts at most twice that.
    const config = readFileSync(fixture.configPath, 'utf8');
    writeFileSync(
      fixture.configPath,
      config.replace('  bind: 127.0.0.1:0\n', '  bind: 127.0.0.1:0\n  request_timeout: 250ms\n'),
    );
    const relay = await serve(fixture, ['--workers', '2']);
    const [hung] = workerPids(relay);
    try {
      // Stopped, it handles neither the SIGTERM nor the closing of its channel to the primary.
      process.kill(hung as number, 'SIGSTOP');
      relay.signal('SIGTERM');
      assert.equal(await relay.exited, 0);
      assert.throws(() => process.kill(hung as number, 0), { code: 'ESRCH' });
      // Its in-flight requests were cut: the operator is told which worker, and why.
      assert.match(relay.output(), /"worker":\d.*"relay worker still running after its drain; killed"/);
    } finally {
      try {
        process.kill(hung as number, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await relay.stop();
      fixture.remove();
    }
  });
});

describe('a second SIGINT while draining', () => {
  it('exits at once with status 130, cutting what is still in flight', async () => {
    const fixture = createReloadFixture();
    const relay = await serve(fixture);
    try {
      const slow = await startSlowRequest(relay.url);
      relay.signal('SIGINT');
      await until(() => relay.output().includes('draining'), 'the relay drains');
      relay.signal('SIGINT');
      assert.equal(await relay.exited, 130);
      assert.match(relay.output(), /second interrupt: exiting without draining/);
      const answer = await slow.finish();
      assert.equal(answer.status, undefined, answer.received);
    } finally {
      await relay.stop();
      fixture.remove();
    }
  });
});

/**
 * An aggregate query whose body is held back: `Expect: 100-continue` makes the server confirm it is handling the
 * request before the body arrives, so the request is in flight for as long as the test wants.
 */
async function startSlowRequest(url: string, path = QUERY, key: string = RELOAD_KEYS.reader) {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ measures: ['people'] });
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    received += chunk;
  });
  socket.on('error', () => socket.destroy());
  socket.write(
    [
      `POST ${path} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      `authorization: Bearer ${key}`,
      'content-type: application/json',
      `content-length: ${body.length}`,
      'expect: 100-continue',
      'connection: close',
      '',
      '',
    ].join('\r\n'),
  );
  await until(() => received.includes('100 Continue'), 'the server accepted the request');
  return {
    /** Sends the body and waits for the connection to end: the final status, if any arrived. */
    async finish() {
      if (!socket.destroyed) socket.write(body);
      await until(() => socket.destroyed || socket.readableEnded, 'the connection ended');
      return { status: /HTTP\/1\.1 (\d{3}) (?!Continue)/.exec(received)?.[1], received };
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function refused(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(port, host);
    probe.once('connect', () => {
      probe.destroy();
      resolve(false);
    });
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

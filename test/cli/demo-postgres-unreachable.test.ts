// `npm start` with a DATABASE_URL that answers nothing (a server not started, a wrong port, a host name with no
// address): one line that names where the demo tried, then the demo on its files alone.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { prepareDemoPostgres } from '../../src/cli/demo-postgres.ts';
import { startDemo } from '../helpers/demo-env.ts';

/** A loopback port nothing listens on: bound by the system, then let go. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('demo with a DATABASE_URL whose server cannot be reached', () => {
  it('says where nothing answered, once, and starts on its files alone', async () => {
    const port = await closedPort();
    const state = mkdtempSync(join(tmpdir(), 'ambit-demo-unreachable-'));
    const demo = startDemo(state, 'Press Ctrl+C', {
      DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${port}/ambit`,
    });
    try {
      await demo.shown;
      assert.match(demo.output.stdout, /Press Ctrl\+C/, demo.output.stderr);
      assert.doesNotMatch(demo.output.stdout, /vital_events/);
      assert.equal(
        demo.output.stderr,
        'DATABASE_URL is set but the demo could not prepare schema ambit_demo (nothing accepts connections at ' +
          `127.0.0.1:${port}: ECONNREFUSED); starting without it.\n`,
      );
      demo.child.kill('SIGINT');
      assert.equal(await demo.exited, 0, demo.output.stderr);
    } finally {
      if (demo.child.exitCode === null) {
        demo.child.kill('SIGKILL');
        await demo.exited;
      }
      rmSync(state, { recursive: true, force: true });
    }
  });

  it('says a server that accepts the connection but never answers is given up on, and after how long', async () => {
    // As the driver raises it once `connectionTimeoutMillis` has passed; its own words name neither what timed out
    // nor the limit.
    const errors: string[] = [];
    const used = await prepareDemoPostgres(
      'postgres://postgres@127.0.0.1:5432/ambit',
      (line) => errors.push(line),
      async () => {
        throw new Error('timeout expired');
      },
    );
    assert.equal(used, false);
    assert.deepEqual(errors, [
      'DATABASE_URL is set but the demo could not prepare schema ambit_demo (the server did not answer within ' +
        '5 s); starting without it.',
    ]);
  });

  it('names a host whose address cannot be looked up', async () => {
    // As the driver raises it: Node's getaddrinfo error, whose bare code says nothing of which host was looked up.
    const errors: string[] = [];
    const used = await prepareDemoPostgres(
      'postgres://postgres:secret@db.registry.invalid/ambit?sslmode=require',
      (line) => errors.push(line),
      async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND db.registry.invalid'), {
          code: 'ENOTFOUND',
          syscall: 'getaddrinfo',
          hostname: 'db.registry.invalid',
        });
      },
    );
    assert.equal(used, false);
    assert.deepEqual(errors, [
      'DATABASE_URL is set but the demo could not prepare schema ambit_demo (the address of host ' +
        'db.registry.invalid could not be looked up: ENOTFOUND); starting without it.',
    ]);
  });
});

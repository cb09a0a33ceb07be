// A live read past its client-side limit is cancelled on the server with the key the backend sent at startup, on
// a connection of its own opened like the read's (TLS included). The real server's side: test/relay/postgres-cancel.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  type FakeBackend,
  startFakeBackend,
  TEST_CA_PATH,
} from '../../../../test/helpers/fake-postgres-backend.ts';
import { eventually } from '../../../../test/helpers/postgres-relay.ts';
import type { CancelOutcome } from './cancel-request.ts';
import { type LiveConnection, openLiveConnection } from './live-connection.ts';
import { GUARD } from './live-connection-test-support.ts';
import { classifyPgError } from './read-only-session.ts';

// A secret key with its high bit set: the key is 32 bits, sent back exactly as received.
const KEY = { processID: 4242, secretKey: -1_234_567_890 };

describe('cancelling a live read past its client-side limit', () => {
  let backend: FakeBackend | undefined;
  let connection: LiveConnection | undefined;
  afterEach(async () => {
    await connection?.close();
    await backend?.close();
  });

  /** How each cancel went, as the connection reports it. */
  const outcomes: CancelOutcome[] = [];
  beforeEach(() => {
    outcomes.length = 0;
  });

  /** A read the backend never answers, on a connection to `url` (the backend's own unless given). */
  async function timeOutOneRead(url?: string, connectTimeoutMs?: number): Promise<void> {
    connection = await openLiveConnection(
      { connectionString: url ?? backend?.url, connectionTimeoutMillis: connectTimeoutMs },
      150,
      () => {},
      (outcome) => outcomes.push(outcome),
    );
    await assert.rejects(connection.read(GUARD, 'SELECT pg_sleep(60)', []), (error: Error) => {
      assert.equal(classifyPgError(error), 'timeout');
      return true;
    });
  }

  // Sent while the read's connection is still open: a pooler finds the backend to cancel by that connection.
  it('sends a CancelRequest naming the backend it started on, before closing the connection', async () => {
    backend = await startFakeBackend({ backendKey: KEY });
    await timeOutOneRead();
    const server = backend;
    await eventually(async () => server.cancels.length > 0, 'a CancelRequest');
    assert.deepEqual(server.cancels, [{ ...KEY, tls: false, openSessions: 1 }]);
    await eventually(async () => outcomes.length > 0, 'the outcome');
    assert.deepEqual(outcomes, ['confirmed'], 'the server closed the cancel connection');
  });

  it('a cancel the server never confirms (its connection left open) is reported unconfirmed, within the connect timeout', async () => {
    backend = await startFakeBackend({ backendKey: KEY, holdCancels: true });
    await timeOutOneRead(undefined, 200);
    await eventually(async () => outcomes.length > 0, 'the outcome');
    assert.deepEqual(outcomes, ['unconfirmed']);
    assert.equal(backend.cancels.length, 1, 'it was sent');
  });

  it('a server that sent no key at startup: nothing is sent, and that is reported', async () => {
    backend = await startFakeBackend();
    await timeOutOneRead();
    await eventually(async () => outcomes.length > 0, 'the outcome');
    assert.deepEqual(outcomes, ['no_key']);
    assert.equal(backend.cancels.length, 0);
  });

  it('sends it over TLS, verifying the server, when the read went over TLS', async () => {
    backend = await startFakeBackend({ tls: true, backendKey: KEY });
    await timeOutOneRead(
      `${backend.url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(TEST_CA_PATH)}`,
    );
    const server = backend;
    await eventually(async () => server.cancels.length > 0, 'a CancelRequest');
    assert.deepEqual(server.cancels, [{ ...KEY, tls: true, openSessions: 1 }]);
  });
});

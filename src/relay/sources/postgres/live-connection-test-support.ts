// Shared by the live connection tests: the read-only guard, and a fake backend per test with its connection.
import { afterEach, beforeEach } from 'node:test';
import { type FakeBackend, startFakeBackend } from '../../../../test/helpers/fake-postgres-backend.ts';
import { type LiveConnection, openLiveConnection } from './live-connection.ts';

export const GUARD = "SELECT set_config('transaction_read_only', 'on', true)";

/** A fake backend per test, and the live connection opened on it (closed after the test). */
export function useFakeBackend() {
  let backend: FakeBackend;
  let connection: LiveConnection | undefined;
  beforeEach(async () => {
    backend = await startFakeBackend();
  });
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await backend.close();
  });

  return {
    get backend() {
      return backend;
    },
    /** Opens the test's connection, on the backend unless another URL is given. */
    async open(timeoutMs = 5000, connectionString = backend.url) {
      connection = await openLiveConnection({ connectionString }, timeoutMs);
      return connection;
    },
    /** Replaces the test's backend by one that speaks TLS only. */
    async startTlsBackend() {
      await backend.close();
      backend = await startFakeBackend({ tls: true });
      return backend;
    },
  };
}

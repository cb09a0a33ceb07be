// Shared by the live connection and live table tests: the read-only guard, a fake backend per test with its
// connection, and a one-column live table with the page read of it.
import { afterEach, beforeEach } from 'node:test';
import { type FakeBackend, startFakeBackend } from '../../../../test/helpers/fake-postgres-backend.ts';
import { postgresSource } from '../../config/postgres-source-schema.ts';
import type { TableConfig } from '../../config/schema.ts';
import { type LiveConnection, openLiveConnection } from './live-connection.ts';
import type { LiveRow } from './live-table.ts';

/** Live table `items` (one string key `id`) over `public.items`, with these source settings. */
export function itemsTable(source: Record<string, unknown> = {}): TableConfig {
  return {
    id: 'items',
    source: postgresSource.parse({
      type: 'postgres',
      connection_env: 'UNUSED',
      table: { name: 'items' },
      ...source,
    }),
    materialization: 'live',
    primary_key: 'id',
    schema: { fields: [{ name: 'id', type: 'string', nullable: false }] },
  } as unknown as TableConfig;
}

/** The first page of `items`, rows returned as read. */
export const PAGE = { columns: ['id'], filters: [], after: undefined, limit: 10 };
export const AS_IS = (row: LiveRow) => row;

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

// Streams a PostgreSQL table or query into the store: one READ ONLY transaction on a connection of its own and
// `COPY (SELECT ...) TO STDOUT`, rows in primary-key order, decoded into column batches as they arrive (the
// socket pauses while batches wait, so the table is never held twice).
import type { EventEmitter } from 'node:events';
import pg from 'pg';
import { isClientTimeout } from '../../../platform/postgres/client-timeout.ts';
import type { PostgresSourceConfig, TableConfig } from '../../config/schema.ts';
import { mapColumns } from '../../store/build-table.ts';
import { createHeapGuard } from '../../store/heap-guard.ts';
import type { ColumnBatch } from '../open-file-source.ts';
import { SourceError } from '../source-error.ts';
import { cancelBackend } from './cancel-request.ts';
import { CopyOut } from './copy-out.ts';
import { postgresLoadError } from './postgres-load-error.ts';
import {
  beginReadOnly,
  classifyPgError,
  clientConfig,
  describePgError,
  noteEarlyCancel,
  qualifiedName,
  quoteIdentifier,
  RAW_TEXT,
} from './read-only-session.ts';
import { rewrittenSinceSnapshot } from './rewritten-since-snapshot.ts';
import { checkSnapshotColumnTypes } from './snapshot-column-types.ts';
import type { TrackedClients } from './tracked-clients.ts';

export interface PostgresSnapshotRows {
  /** The declared fields, in declaration order: every batch's columns are aligned with them. */
  readonly columns: readonly string[];
  /** Rows in primary-key order, column by column; the connection closes when iteration ends. */
  readonly columnBatches: AsyncIterable<ColumnBatch>;
  /** Bytes of row data read so far. */
  bytesRead(): number;
  /** Ends a read whose rows were never iterated (a check that only opens it): its transaction and connection. */
  close(): Promise<void>;
}

/** `FROM` target of a source: the quoted table, or the configured query as a subquery. */
export function relationOf(source: PostgresSourceConfig): string {
  if (source.table) return qualifiedName(source.table);
  // Newlines keep a trailing `--` comment of the query from swallowing the closing parenthesis.
  return `(\n${source.query ?? ''}\n) AS ambit_source`;
}

/**
 * Connects, checks the columns against the declared schema (missing ones fail, extra ones fail under `strict`),
 * and starts the COPY. Rejects with a SourceError (`ingest.source_unavailable` when the server is not there).
 * `query_timeout` bounds the whole COPY: it is one statement. Every statement also has the client-side backstop,
 * so a server or network that goes silent mid-load fails the load instead of holding every later reload. With
 * `snapshot`, the read imports that exported snapshot; when the import fails (the exporting transaction is gone),
 * the table is read at its own moment instead.
 */
export async function openPostgresSnapshot(
  table: TableConfig,
  url: string,
  snapshot?: string,
  onSnapshotRefused: (reason: string) => void = () => {},
  /** Where the read's connection is tracked while open, so that closing the sources stops it. */
  reads?: TrackedClients,
): Promise<PostgresSnapshotRows> {
  const source = table.source as PostgresSourceConfig;
  const client = new pg.Client(clientConfig(url, source));
  reads?.add(client, source.connect_timeout);
  // A socket error while idle is reported through the next query; the listener keeps it from being fatal.
  client.on('error', () => {});
  const encoding = watchEncoding(client);
  const relation = relationOf(source);
  const declared = table.schema.fields.map((field) => field.name);
  // When the statements that may fail were sent: a 57014 sooner than query_timeout is another session's cancel.
  let sentAt = performance.now();
  try {
    await client.connect();
    sentAt = performance.now();
    try {
      await client.query(beginReadOnly(source, snapshot));
    } catch (error) {
      // The server refused the snapshot (22023: its exporting transaction is gone): read at its own moment. An
      // unreachable or silent server fails the read as it would have anyway.
      const kind = classifyPgError(error);
      if (snapshot === undefined || kind === 'unavailable' || kind === 'timeout') throw error;
      onSnapshotRefused(describePgError(error));
      await client.end().catch(() => {});
      return await openPostgresSnapshot(table, url, undefined, undefined, reads);
    }
    const probe = await client.query({ text: `SELECT * FROM ${relation} LIMIT 0`, types: RAW_TEXT });
    // The probe locked what the read scans; one of them rewritten or created since the shared moment would read as
    // empty under it (the moment is older than its rows), so the table is read at its own moment instead.
    if (snapshot !== undefined && (await rewrittenSinceSnapshot(client))) {
      onSnapshotRefused('a table the read scans was rewritten or created again since the shared moment');
      await client.end().catch(() => {});
      return await openPostgresSnapshot(table, url, undefined, undefined, reads);
    }
    mapColumns(
      table,
      probe.fields.map((field) => field.name),
    );
    checkSnapshotColumnTypes(table, probe.fields);
  } catch (error) {
    await cancelTimedOut(client, error, source);
    await client.end().catch(() => {});
    noteEarlyCancel(error, sentAt, source);
    throw postgresLoadError(table.id, error);
  }
  const columns = declared.map(quoteIdentifier).join(', ');
  const copy = new CopyOut(
    `COPY (SELECT ${columns} FROM ${relation} ORDER BY ${quoteIdentifier(table.primary_key)}) TO STDOUT`,
    table.schema.fields.map((field) => field.type),
    createHeapGuard(table.id),
  );
  let started = false;
  async function* batches(): AsyncGenerator<ColumnBatch> {
    started = true;
    let finished = false;
    let failure: unknown;
    try {
      const copySent = performance.now();
      client.query(copy);
      try {
        yield* copy.batches();
      } catch (error) {
        failure = error;
        noteEarlyCancel(error, copySent, source);
        throw postgresLoadError(table.id, error);
      }
      // Reported before the COPY's ReadyForQuery, so known once every row has come.
      const changed = encoding.changedTo();
      if (changed !== undefined) {
        throw new SourceError({
          tableId: table.id,
          code: 'ingest.query_failed',
          detail: `a function the read ran set the session's client_encoding to ${changed.slice(0, 40)}: its text cannot be read as UTF-8`,
        });
      }
      finished = true;
    } finally {
      // COMMIT ends the read-only transaction; an abandoned read just drops the connection.
      if (finished) await client.query('COMMIT').catch(() => {});
      else copy.abandon();
      await cancelTimedOut(client, failure, source);
      await client.end().catch(() => {});
    }
  }
  return {
    columns: declared,
    columnBatches: { [Symbol.asyncIterator]: batches },
    bytesRead: () => copy.bytes,
    async close() {
      if (started) return;
      started = true;
      await client.end().catch(() => {});
    },
  };
}

/**
 * A statement past the client-side backstop is still running on the server (closing the connection does not stop
 * it): it is cancelled, before the connection closes (a pooler finds the backend to cancel by its client
 * connection). The load's failure waits for that, at most `connect_timeout`.
 */
async function cancelTimedOut(
  client: pg.Client,
  error: unknown,
  source: PostgresSourceConfig,
): Promise<void> {
  if (isClientTimeout(error)) await cancelBackend(client, source.connect_timeout);
}

interface ParameterStatus {
  readonly parameterName: string;
  readonly parameterValue: string;
}

/**
 * Text is read as UTF-8, the client_encoding the driver opens sessions with. A function a view calls can change
 * it (`set_config('client_encoding', 'LATIN1', false)`), and the server would then send text the load would read
 * as U+FFFD; the server reports such a change, which is what this hears.
 */
function watchEncoding(client: pg.Client): { changedTo(): string | undefined } {
  let changed: string | undefined;
  const connection = (client as unknown as { connection: EventEmitter }).connection;
  connection.on('parameterStatus', (message: ParameterStatus) => {
    // Once off UTF-8, text has been misread, even if a later report says UTF8 again.
    if (message.parameterName === 'client_encoding' && message.parameterValue.toUpperCase() !== 'UTF8') {
      changed ??= message.parameterValue;
    }
  });
  return { changedTo: () => changed };
}

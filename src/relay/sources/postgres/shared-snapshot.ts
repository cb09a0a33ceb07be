// One moment of a database for every snapshot table a reload reads from it: a transaction on a connection of its
// own exports its snapshot (`pg_export_snapshot`), each table's read imports it (`SET TRANSACTION SNAPSHOT`), so
// two tables changed together in one transaction are never served one before and one after the change. The
// exporting transaction stays open until the reload's reads have all ended (the reloader cannot tell when they
// have begun).
import pg from 'pg';
import type { Logger } from '../../../platform/log.ts';
import type { PostgresSourceConfig } from '../../config/schema.ts';
import { clientConfig, describePgError } from './read-only-session.ts';
import type { TrackedClients } from './tracked-clients.ts';

/** What pg_export_snapshot returns (`00000003-0000001B-1`): checked before it is written into a statement. */
const SNAPSHOT_ID = /^[0-9A-Fa-f]+(-[0-9A-Fa-f]+)+$/;

export interface SharedSnapshots {
  /** The snapshot the tables on `url` read, when one is shared. */
  idFor(url: string): string | undefined;
  /** Ends the exporting transactions; reads that imported a snapshot keep it. */
  end(): Promise<void>;
}

/**
 * Exports one snapshot per database URL that two or more snapshot tables read (`sources` by URL). A database
 * that cannot export one (unreachable now, or a server without exported snapshots) is left out: its tables are
 * read each at its own moment, as they would be alone, and their own reads report an unreachable server.
 */
export async function exportSharedSnapshots(
  sources: ReadonlyMap<string, readonly PostgresSourceConfig[]>,
  logger: Logger,
  /** Where the exporting connections are tracked while open, so that closing the sources ends them. */
  reads?: TrackedClients,
): Promise<SharedSnapshots> {
  const ids = new Map<string, string>();
  const clients: pg.Client[] = [];
  await Promise.all(
    [...sources].map(async ([url, tables]) => {
      const source = tables[0];
      if (tables.length < 2 || source === undefined) return;
      const client = new pg.Client(clientConfig(url, source));
      client.on('error', () => {});
      reads?.add(client, source.connect_timeout);
      try {
        await client.connect();
        // A server that serves every client in one session (an embedded one, or a pooler handing out one server
        // connection) would run the tables' reads inside this transaction: nothing is exported there.
        if (await sharesOneSession(client, url, source))
          throw new Error('the server serves clients in one session');
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const result = await client.query<{ id: string }>('SELECT pg_catalog.pg_export_snapshot() AS id');
        const id = result.rows[0]?.id;
        if (id === undefined || !SNAPSHOT_ID.test(id))
          throw new Error('pg_export_snapshot returned no snapshot id');
        ids.set(url, id);
        clients.push(client);
      } catch (error) {
        await client.end().catch(() => {});
        logger.debug(
          { reason: describePgError(error), tables: tables.length },
          'snapshot tables of one database are read each at its own moment: no snapshot could be exported',
        );
      }
    }),
  );
  return {
    idFor: (url) => ids.get(url),
    async end() {
      ids.clear();
      await Promise.all(
        clients.splice(0).map(async (client) => {
          await client.query('COMMIT').catch(() => {});
          await client.end().catch(() => {});
        }),
      );
    },
  };
}

/** Whether a second connection to `url` reaches the backend `client` is on. */
async function sharesOneSession(
  client: pg.Client,
  url: string,
  source: PostgresSourceConfig,
): Promise<boolean> {
  const other = new pg.Client(clientConfig(url, source));
  other.on('error', () => {});
  try {
    await other.connect();
    const pid = 'SELECT pg_catalog.pg_backend_pid() AS pid';
    const [mine, theirs] = await Promise.all([
      client.query<{ pid: number }>(pid),
      other.query<{ pid: number }>(pid),
    ]);
    return mine.rows[0]?.pid === theirs.rows[0]?.pid;
  } finally {
    await other.end().catch(() => {});
  }
}

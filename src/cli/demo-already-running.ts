// Whether another demo already holds this one's state folder or listen addresses, asked before the demo writes to
// DATABASE_URL: the relay and the verifier find out only once started, after the table a running demo serves live
// has been rewritten under it.
import { createServer } from 'node:net';
import { join } from 'node:path';
import { AuditFileInUse, lockAuditFile } from '../platform/audit/audit-file-lock.ts';
import { splitBind } from '../relay/start-relay.ts';

/**
 * The error a start would meet (AuditFileInUse for the relay's audit file, or a failed `listen`), or undefined.
 * `binds` are the demo's listen addresses as given; port 0 (any free port) cannot clash and is not tried.
 */
export async function demoInUse(stateDir: string, binds: readonly string[]): Promise<Error | undefined> {
  try {
    // demo/relay.yaml's audit.path; taken and let go at once, as the relay takes it again when it starts.
    lockAuditFile(join(stateDir, 'audit.jsonl')).release();
  } catch (error) {
    if (error instanceof AuditFileInUse) return error;
    // Any other failure (a folder not writable) is the relay's to report, as without DATABASE_URL.
  }
  for (const bind of binds) {
    const { host, port } = splitBind(bind);
    if (port === 0) continue;
    const failed = await tryListen(host, port);
    if (failed !== undefined) return failed;
  }
  return undefined;
}

/** Listens on host:port and stops at once; the listen error (EADDRINUSE and the like) if it failed. */
function tryListen(host: string, port: number): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error) => resolve(error));
    server.listen({ host, port }, () => server.close(() => resolve(undefined)));
  });
}

// Run in a process of its own (runToEnd): `ambit demo` with DATABASE_URL is sent a signal while its start waits on
// a PostgreSQL server that never answers: while seeding schema ambit_demo (the server answers nothing), or while
// the relay loads the seeded table (the server answers the seeding connection only). Prints the outcome as JSON.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  backendMessage,
  commandComplete,
  type FrontendMessage,
  readyForQuery,
  startFakeBackend,
} from '../helpers/fake-postgres-backend.ts';
import { freePort, startAmbit } from './stop-while-starting.ts';

export const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';

export type DemoStopCase = 'seeding' | 'loading';

export interface DemoStopOutcome {
  readonly code: number | null;
  readonly signal: string | null;
  readonly output: string;
  /** The relay's answer to a read while it was loading (the loading case only). */
  readonly readStatus?: number;
  /** The relay's audit file's lines once the process has exited. */
  readonly auditLines: string[];
  /** The state folder's files once the process has exited. */
  readonly files: string[];
  /** Connections the database received (every one closed by then). */
  readonly connections: number;
}

/** As a server answers the seeding statements: simple queries, and the INSERT's extended-protocol batch at Sync. */
function answerSeeding(message: FrontendMessage, socket: Socket): void {
  if (message.type === 'Q') socket.write(Buffer.concat([commandComplete('OK'), readyForQuery('I')]));
  if (message.type === 'S') {
    socket.write(
      Buffer.concat([
        backendMessage('1'),
        backendMessage('2'),
        backendMessage('n'),
        commandComplete('INSERT 0 300'),
        readyForQuery('I'),
      ]),
    );
  }
}

/** `signal`: SIGTERM, or SIGHUP as a terminal that closes sends it. */
export async function demoStopWhileStarting(
  which: DemoStopCase,
  signal: 'SIGTERM' | 'SIGHUP' = 'SIGTERM',
): Promise<DemoStopOutcome> {
  const backend = await startFakeBackend();
  // The first connection is the demo's seeding one; the relay's load opens the next.
  const waiting = new Promise<void>((resolve) => {
    backend.onMessage = (message, socket) => {
      if (which === 'loading' && socket === backend.sockets[0]) answerSeeding(message, socket);
      else resolve();
    };
  });
  const state = mkdtempSync(join(tmpdir(), 'ambit-demo-stop-'));
  const port = await freePort();
  const { child, output, exited } = startAmbit(['demo'], {
    DATABASE_URL: backend.url,
    AMBIT_DEMO_STATE_DIR: state,
    AMBIT_RELAY_BIND: `127.0.0.1:${port}`,
    AMBIT_VERIFIER_BIND: '127.0.0.1:0',
    AMBIT_VERIFIER_ADMIN_BIND: '127.0.0.1:0',
  });
  await Promise.race([waiting, exited]);
  let readStatus: number | undefined;
  if (which === 'loading') {
    const key = /^AMBIT_DEMO_CASEWORKER_KEY=(.*)$/m.exec(
      readFileSync(join(state, 'demo-keys.env'), 'utf8'),
    )?.[1];
    const answer = await fetch(`http://127.0.0.1:${port}${HOUSEHOLDS}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    readStatus = answer.status;
  }
  child.kill(signal);
  const ended = await exited;
  await Promise.all(
    backend.sockets.map((socket) =>
      socket.closed ? undefined : new Promise((resolve) => socket.once('close', resolve)),
    ),
  );
  const auditPath = join(state, 'audit.jsonl');
  const auditLines = existsSync(auditPath)
    ? readFileSync(auditPath, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
  const files = readdirSync(state).sort();
  await backend.close();
  rmSync(state, { recursive: true, force: true });
  return {
    ...ended,
    output: output(),
    ...(readStatus === undefined ? {} : { readStatus }),
    auditLines,
    files,
    connections: backend.sockets.length,
  };
}

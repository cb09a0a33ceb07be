// An admin reload still running when the relay is asked to stop: it is answered (its outcome if it finishes within
// the drain, else a 503 `http.shutting_down` before the drain's limit) and audited before the audit file is closed.
// A request that reaches the admin listener during the drain is refused at once.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import type { ReloadOutcome } from '../../src/relay/reload/reloader.ts';
import { type RunningRelay, startRelay } from '../../src/relay/start-relay.ts';
import { eventually } from '../helpers/postgres-relay.ts';
import { createReloadFixture, RELOAD_KEYS, type ReloadFixture, reloadEnv } from './reload-fixture.ts';

const RELOAD_ALL = '/admin/v1/reload';
const RELOAD_TABLE = '/admin/v1/datasets/people/tables/people_table/reload';

/** A reload held until the test lets it go: it is running for as long as the test needs. */
interface HeldReload {
  readonly started: Promise<void>;
  finish(): void;
}

interface Stopping {
  fixture: ReloadFixture;
  running: RunningRelay;
  logLines: string[];
  /** Makes the relay's next reload (of either kind) wait for `finish`. */
  holdNextReload(): HeldReload;
  auditRecords(): Record<string, unknown>[];
}

async function startStopping(): Promise<Stopping> {
  const fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
  // A short time-out keeps the drain's limit (twice it) short.
  const config = readFileSync(fixture.configPath, 'utf8');
  writeFileSync(
    fixture.configPath,
    config.replace('  bind: 127.0.0.1:0\n', '  bind: 127.0.0.1:0\n  request_timeout: 300ms\n'),
  );
  const logLines: string[] = [];
  const destination = { write: (line: string) => logLines.push(line) } as unknown as NodeJS.WritableStream;
  const running = await startRelay(loadRelayConfig(fixture.configPath, reloadEnv()), {
    logger: createLogger({ name: 'reload-shutdown-test', level: 'info', destination }),
    clock: systemClock,
    random: systemRandom,
  });
  await running.relay.loaded;
  // The admin backend calls the reloader's methods as they are at each call: a held one stands for a slow source
  // (a large file, a busy database) without depending on how slow it is.
  const reloader = running.relay.reloader;
  const holdNextReload = (): HeldReload => {
    let started = () => {};
    let finish = () => {};
    const startedPromise = new Promise<void>((resolve) => {
      started = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const reloadAll = reloader.reloadAll;
    const reloadTable = reloader.reloadTable;
    const held =
      <A extends unknown[]>(reload: (...args: A) => Promise<ReloadOutcome>) =>
      async (...args: A): Promise<ReloadOutcome> => {
        reloader.reloadAll = reloadAll;
        reloader.reloadTable = reloadTable;
        started();
        await gate;
        return reload(...args);
      };
    reloader.reloadAll = held(reloadAll);
    reloader.reloadTable = held(reloadTable);
    return { started: startedPromise, finish };
  };
  return {
    fixture,
    running,
    logLines,
    holdNextReload,
    auditRecords() {
      const text = readFileSync(join(fixture.dir, 'audit.jsonl'), 'utf8').trim();
      return text === '' ? [] : text.split('\n').map((line) => JSON.parse(line).record);
    },
  };
}

/** A raw HTTP exchange on its own connection; `send` may be called more than once (a request in pieces). */
function openExchange(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    received += chunk;
  });
  socket.on('error', () => socket.destroy());
  return {
    send: (text: string) => socket.write(text),
    get received() {
      return received;
    },
    /** Waits for the connection to end: the status line and body received, if any. */
    async ended() {
      await eventually(async () => socket.destroyed || socket.readableEnded, 'the connection ended');
      return answerOf(received);
    },
    destroy: () => socket.destroy(),
  };
}

function answerOf(received: string) {
  const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
  const requestId = /\r\nx-request-id: ([^\r\n]+)/i.exec(received)?.[1];
  const body = received.slice(received.indexOf('\r\n\r\n') + 4);
  return { status, requestId, body, received };
}

function request(path: string, url: string): string {
  const { host } = new URL(url);
  return `POST ${path} HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer ${RELOAD_KEYS.operator}\r\ncontent-length: 0\r\n\r\n`;
}

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const probe = connect(Number(port), hostname);
    probe.once('connect', () => {
      probe.destroy();
      resolve(false);
    });
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe('an admin reload running when the relay stops', () => {
  let stopping: Stopping;
  let held: HeldReload | undefined;
  beforeEach(async () => {
    stopping = await startStopping();
  });
  afterEach(async () => {
    held?.finish();
    held = undefined;
    await stopping.running.close();
    stopping.fixture.remove();
  });

  for (const path of [RELOAD_ALL, RELOAD_TABLE]) {
    it(`POST ${path} still running at the limit: 503 http.shutting_down, audited before the audit file closes`, async () => {
      const adminUrl = stopping.running.adminUrl as string;
      held = stopping.holdNextReload();
      const exchange = openExchange(adminUrl);
      exchange.send(request(path, adminUrl));
      await held.started;
      const stopped = stopping.running.close();
      const answer = await exchange.ended();
      await stopped;
      assert.equal(answer.status, '503', answer.received);
      assert.equal(JSON.parse(answer.body).code, 'http.shutting_down');
      assert.match(JSON.parse(answer.body).detail, /reload/);
      const record = stopping.auditRecords().find((line) => line.request_id === answer.requestId);
      assert.ok(record, `no audit record for ${answer.requestId}`);
      assert.equal(record.status_code, 503);
      assert.equal(record.error_code, 'http.shutting_down');
      assert.equal(record.endpoint_kind, 'admin');
      // The abandoned reload ends later: nothing more is written for its request, so nothing fails.
      held.finish();
      await eventually(
        async () => stopping.logLines.some((line) => JSON.parse(line).msg === 'reload applied'),
        'the abandoned reload ends',
      );
      const errors = stopping.logLines.filter((line) => JSON.parse(line).level >= 50);
      assert.deepEqual(errors, []);
      assert.ok(
        stopping.logLines.some((line) => /admin reloads still running were answered 503/.test(line)),
        stopping.logLines.join(''),
      );
    });
  }

  it('a reload that finishes within the drain is answered with its outcome and audited', async () => {
    const { running } = stopping;
    const adminUrl = running.adminUrl as string;
    held = stopping.holdNextReload();
    const exchange = openExchange(adminUrl);
    exchange.send(request(RELOAD_ALL, adminUrl));
    await held.started;
    const stopped = running.close();
    await eventually(() => refused(adminUrl), 'the admin listener stops accepting connections');
    held.finish();
    const answer = await exchange.ended();
    await stopped;
    assert.equal(answer.status, '200', answer.received);
    assert.equal(JSON.parse(answer.body).status, 'ok');
    const record = stopping.auditRecords().find((line) => line.request_id === answer.requestId);
    assert.equal(record?.status_code, 200);
  });

  it('a reload asked during the drain is refused at once with 503 http.shutting_down, and audited', async () => {
    const { running } = stopping;
    const adminUrl = running.adminUrl as string;
    held = stopping.holdNextReload();
    const exchange = openExchange(adminUrl);
    exchange.send(request(RELOAD_ALL, adminUrl));
    await held.started;
    const before = stopping.auditRecords().length;
    const stopped = running.close();
    await eventually(() => refused(adminUrl), 'the admin listener stops accepting connections');
    // Sent on the connection kept open for the reload in flight.
    exchange.send(request(RELOAD_TABLE, adminUrl));
    // Answered (its record committed) while the first reload is still held; its answer is written after the
    // first one, in the order the requests arrived.
    await eventually(
      async () => stopping.auditRecords().length > before,
      'the second request is answered while the first reload runs',
    );
    const late = stopping.auditRecords()[before];
    assert.equal(late?.status_code, 503);
    assert.equal(late?.error_code, 'http.shutting_down');
    held.finish();
    await exchange.ended();
    await stopped;
    const answers = exchange.received.split(/(?=HTTP\/1\.1 )/).map(answerOf);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      ['200', '503'],
      exchange.received,
    );
    assert.equal(answers[1]?.requestId, late?.request_id);
    assert.match(answers[1]?.received ?? '', /\r\nconnection: close\r\n/i);
  });
});

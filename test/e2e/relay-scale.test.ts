// Scale-out with real processes: two relays from one config accept each other's cursors and agree on ETags;
// `--workers N` shares one port, reloads every worker through the admin listener and keeps one audit chain per
// worker, and starts a dead worker again until it loads, handing it no request before its data is loaded (and running
// in it the reloads asked meanwhile); SIGTERM or SIGINT, to the primary or to its whole process group, lets an
// in-flight request finish while new connections are refused, and a hung worker does not hold the primary forever.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { verifyAuditFile } from '../../src/platform/audit/audit-cli.ts';
import {
  createReloadFixture,
  peopleCsv,
  RELOAD_AUDIT_SECRET,
  RELOAD_KEYS,
  type ReloadFixture,
  type ReloadPersona,
  reloadEnv,
} from '../relay/reload-fixture.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PEOPLE = '/v1/datasets/people/entities/person/records';
const QUERY = '/v1/datasets/people/aggregates/people_by_district/query';
/** People rows in a table that takes a noticeable while to load. */
const LARGE_PEOPLE = 300_000;

interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly adminUrl: string | undefined;
  output(): string;
  stop(): Promise<number | null>;
  /** Sends `signal` to the relay, or to its whole process group (it must have been served with `group`). */
  signal(signal: NodeJS.Signals, group?: boolean): void;
  readonly exited: Promise<number | null>;
}

/** `group`: the relay leads a process group of its own, so a test can signal it and its workers at once. */
async function serve(
  fixture: ReloadFixture,
  extra: string[] = [],
  env: Record<string, string> = {},
  group = false,
) {
  const child = spawn(
    process.execPath,
    ['bin/ambit.js', 'relay', 'serve', '--config', fixture.configPath, ...extra],
    {
      cwd: ROOT,
      env: { ...process.env, ...reloadEnv(), AMBIT_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: group,
    },
  );
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The admin listener's line is written after the public one and may arrive in a later chunk: a config with an
  // admin listener is served once both are announced.
  const withAdmin = readFileSync(fixture.configPath, 'utf8').includes('admin_bind:');
  const announced = () =>
    /listening on (http:\S+)/.test(out) && (!withAdmin || /admin listener on (http:\S+)/.test(out));
  const deadline = Date.now() + 60_000;
  while (!announced() && Date.now() < deadline && child.exitCode === null) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = /listening on (http:\S+)/.exec(out)?.[1];
  assert.ok(url, out);
  const served: Served = {
    child,
    url,
    get adminUrl() {
      return /admin listener on (http:\S+)/.exec(out)?.[1];
    },
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    signal(signal, group = false) {
      if (child.exitCode !== null || child.pid === undefined) return;
      if (group) process.kill(-child.pid, signal);
      else child.kill(signal);
    },
    exited,
  };
  return served;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request on a connection of its own, so a cluster hands consecutive requests to different workers. */
function call(
  url: string,
  options: { method?: string; as?: ReloadPersona; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.as) headers.authorization = `Bearer ${RELOAD_KEYS[options.as]}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const req = httpRequest(url, { method: options.method ?? 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function json(answer: Answer): { data: { id: number }[]; pagination: { next_cursor?: string } } {
  assert.equal(answer.status, 200, answer.body.slice(0, 300));
  return JSON.parse(answer.body);
}

describe('two relay processes from one config', () => {
  let fixtures: ReloadFixture[];
  let relays: Served[];
  before(async () => {
    // Same config and data in two folders: the processes share nothing but what the config says.
    fixtures = [createReloadFixture(), createReloadFixture()];
    relays = await Promise.all(fixtures.map((fixture) => serve(fixture)));
  });
  after(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    for (const fixture of fixtures) fixture.remove();
  });

  it('serve one paginated walk alternately: each accepts the cursors the other issued', async () => {
    const ids: number[] = [];
    let cursor: string | undefined;
    let page = 0;
    do {
      const relay = relays[page % 2] as Served;
      const path = `${PEOPLE}?limit=4${cursor ? `&cursor=${cursor}` : ''}`;
      const body = json(await call(`${relay.url}${path}`, { as: 'reader' }));
      ids.push(...body.data.map((row) => row.id));
      cursor = body.pagination.next_cursor;
      page++;
    } while (cursor !== undefined);
    assert.equal(page, 8);
    assert.deepEqual(
      ids,
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
  });

  it('give the same ETag for the same read, and 304 for the other process ETag', async () => {
    for (const path of [`${PEOPLE}?limit=5`, `${PEOPLE}/7`, `${PEOPLE}?district=b`]) {
      const [a, b] = await Promise.all(relays.map((relay) => call(`${relay.url}${path}`, { as: 'reader' })));
      assert.equal(a?.status, 200);
      assert.match(String(a?.headers.etag), /^"sha256:[0-9a-f]{64}"$/);
      assert.equal(a?.headers.etag, b?.headers.etag, path);
      const revalidated = await call(`${relays[1]?.url}${path}`, {
        as: 'reader',
        headers: { 'if-none-match': String(a?.headers.etag) },
      });
      assert.equal(revalidated.status, 304, path);
    }
  });

  it('a relay with another audit secret (hence another cursor key) refuses those cursors', async () => {
    const other = createReloadFixture();
    const relay = await serve(other, [], { AUDIT_SECRET: 'another-audit-secret-0123456789abcdef01' });
    try {
      const first = json(await call(`${relays[0]?.url}${PEOPLE}?limit=4`, { as: 'reader' }));
      const answer = await call(`${relay.url}${PEOPLE}?limit=4&cursor=${first.pagination.next_cursor}`, {
        as: 'reader',
      });
      assert.equal(answer.status, 400);
      assert.equal(JSON.parse(answer.body).code, 'pagination.cursor_malformed');
    } finally {
      await relay.stop();
      other.remove();
    }
  });
});

describe('ambit relay serve --workers 2', () => {
  let fixture: ReloadFixture;
  let relay: Served;
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    relay = await serve(fixture, ['--workers', '2']);
  });
  after(async () => {
    await relay.stop();
    fixture.remove();
  });

  it('announces both listeners once, for two workers', () => {
    assert.match(relay.output(), /listening on http:\S+ \(2 workers\)/);
    assert.equal(relay.output().match(/listening on/g)?.length, 1);
    assert.ok(relay.adminUrl);
  });

  it('serves reads and a paginated walk from the shared port, whichever worker answers', async () => {
    for (let i = 0; i < 10; i++)
      assert.equal(json(await call(`${relay.url}${PEOPLE}?limit=3`, { as: 'reader' })).data.length, 3);
    const ids: number[] = [];
    let cursor: string | undefined;
    do {
      const body = json(
        await call(`${relay.url}${PEOPLE}?limit=7${cursor ? `&cursor=${cursor}` : ''}`, { as: 'reader' }),
      );
      ids.push(...body.data.map((row) => row.id));
      cursor = body.pagination.next_cursor;
    } while (cursor !== undefined);
    assert.equal(ids.length, 30);
  });

  it('reloads every worker through the admin listener of the primary', async () => {
    fixture.writePeople(peopleCsv(40));
    const answer = await call(`${relay.adminUrl}/admin/v1/reload`, { method: 'POST', as: 'operator' });
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), {
      status: 'ok',
      counts: { total: 2, succeeded: 2, failed: 0 },
    });
    for (let i = 0; i < 8; i++) {
      assert.equal(json(await call(`${relay.url}${PEOPLE}?limit=100`, { as: 'reader' })).data.length, 40);
    }
    const table = await call(`${relay.adminUrl}/admin/v1/datasets/people/tables/people_table/reload`, {
      method: 'POST',
      as: 'admin_only',
    });
    assert.deepEqual(JSON.parse(table.body), { status: 'ok', counts: { reloaded: 1 } });
  });

  it('sums metrics over the workers and reports readiness and posture for all of them', async () => {
    const metrics = await call(`${relay.adminUrl}/metrics`, { as: 'metrics_only' });
    assert.equal(metrics.status, 200);
    const line = (series: string) =>
      Number(
        metrics.body
          .split('\n')
          .find((candidate) => candidate.startsWith(`${series} `))
          ?.split(' ')
          .pop(),
      );
    assert.equal(line('ambit_relay_processes'), 2);
    assert.equal(line('ambit_relay_readiness_fully_ready'), 1);
    assert.equal(line('ambit_relay_reloads_total{scope="all",trigger="admin",outcome="ok"}'), 2);
    const records = 'method="GET",route="/v1/datasets/:dataset_id/entities/:entity/records"';
    // 10 reads, a walk of 5 pages and 8 reads after the reload, all answered 200.
    assert.equal(line(`ambit_relay_http_requests_total{${records},status="200"}`), 23);
    assert.equal(line(`ambit_relay_http_request_duration_seconds_count{${records}}`), 23);
    const posture = JSON.parse((await call(`${relay.adminUrl}/admin/v1/posture`, { as: 'ops_only' })).body);
    assert.equal(posture.runtime.processes, 2);
    assert.equal(posture.data.ready, true);
    assert.equal((await call(`${relay.adminUrl}/ready`)).status, 200);
  });

  it('keeps one verifiable audit chain per worker, and the admin requests in the primary chain', () => {
    const secret = Buffer.from(RELOAD_AUDIT_SECRET);
    for (const name of ['audit.worker-1.jsonl', 'audit.worker-2.jsonl', 'audit.jsonl']) {
      const path = join(fixture.dir, name);
      assert.ok(existsSync(path), name);
      const result = verifyAuditFile(path, secret);
      assert.ok(result.ok, `${name}: ${JSON.stringify(result)}`);
      assert.ok(result.count > 0, `${name} holds records: both workers served requests`);
    }
  });

  it('stops every worker on SIGTERM and exits 0', async () => {
    assert.equal(await relay.stop(), 0);
    assert.match(relay.output(), /draining/);
  });
});

describe('ambit relay serve --workers 2 with a bad source', () => {
  it('stops every worker and exits 1 naming the table, row and column', async () => {
    const fixture = createReloadFixture();
    fixture.writePeople('id,district,born\n1,a,2001-02-30\n');
    try {
      const child = spawn(
        process.execPath,
        ['bin/ambit.js', 'relay', 'serve', '--config', fixture.configPath, '--workers', '2'],
        {
          cwd: ROOT,
          env: { ...process.env, ...reloadEnv(), AMBIT_LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
      });
      child.stderr.on('data', (chunk) => {
        out += chunk;
      });
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 1, out);
      assert.match(
        out,
        /ingest\.type_mismatch: table people_table \(data row 1, column "born"\): the string is not a date/,
      );
      // The load error crossed the IPC channel and reached the output with no cell value in it.
      assert.doesNotMatch(out, /2001-02-30/);
      assert.doesNotMatch(out, /listening on/);
    } finally {
      fixture.remove();
    }
  });
});

describe('ambit relay serve --workers 2 when a worker dies and cannot start again at once', () => {
  let fixture: ReloadFixture;
  let relay: Served;
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    relay = await serve(fixture, ['--workers', '2']);
  });
  after(async () => {
    await relay.stop();
    fixture.remove();
  });

  const gauge = (name: string) => gaugeOf(relay, name);
  const posture = async () =>
    JSON.parse((await call(`${relay.adminUrl}/admin/v1/posture`, { as: 'ops_only' })).body);

  it('retries the start until the source is fixed, reporting one worker down meanwhile', async () => {
    const workers = workerPids(relay);
    assert.equal(workers.length, 2);
    fixture.writePeople('id,district,born\n1,a,PIN-4711\n');
    process.kill(workers[0] as number, 'SIGKILL');
    await until(
      () => (relay.output().match(/restart failed; trying again/g)?.length ?? 0) >= 1,
      'a restart failed',
    );
    assert.match(
      relay.output(),
      /ingest\.type_mismatch: table people_table \(data row 1, column \\"born\\"\)/,
    );
    assert.doesNotMatch(relay.output(), /PIN-4711/);
    // Metrics, posture and readiness tell the same story: one of two workers runs, the relay is not fully ready.
    assert.equal(await gauge('ambit_relay_processes'), 1);
    assert.equal(await gauge('ambit_relay_processes_configured'), 2);
    assert.equal(await gauge('ambit_relay_readiness_fully_ready'), 0);
    const down = await posture();
    assert.deepEqual([down.runtime.processes, down.runtime.processes_configured], [1, 2]);
    assert.equal(down.data.ready, false);
    assert.equal((await call(`${relay.adminUrl}/ready`)).status, 503);
    // The other worker keeps serving the data it loaded.
    assert.equal(json(await call(`${relay.url}${PEOPLE}?limit=100`, { as: 'reader' })).data.length, 30);

    fixture.writePeople(peopleCsv(30));
    await until(async () => (await gauge('ambit_relay_processes')) === 2, 'the worker is back', true);
    assert.equal(await gauge('ambit_relay_readiness_fully_ready'), 1);
    const up = await posture();
    assert.deepEqual([up.runtime.processes, up.runtime.processes_configured], [2, 2]);
    assert.equal(up.data.ready, true);
    assert.equal((await call(`${relay.adminUrl}/ready`)).status, 200);
    for (let i = 0; i < 6; i++) {
      assert.equal(json(await call(`${relay.url}${PEOPLE}?limit=100`, { as: 'reader' })).data.length, 30);
    }
  });
});

describe('ambit relay serve --workers 2 when a worker dies', () => {
  let fixture: ReloadFixture;
  let relay: Served;
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    // Enough rows that a load lasts long enough for many requests to arrive meanwhile.
    fixture.writePeople(peopleCsv(LARGE_PEOPLE));
    relay = await serve(fixture, ['--workers', '2']);
  });
  after(async () => {
    await relay.stop();
    fixture.remove();
  });

  it('hands no request to the worker started again before its data is loaded', async () => {
    const workers = workerPids(relay);
    assert.equal(workers.length, 2);
    process.kill(workers[0] as number, 'SIGKILL');
    // Requests start once the primary knows the worker is gone, so none is handed to the dying process.
    await until(
      async () => (await gaugeOf(relay, 'ambit_relay_processes')) === 1,
      'the worker is down',
      true,
    );
    const failures = new Map<string, number>();
    let answered = 0;
    const read = async () => {
      const answer = await call(`${relay.url}${PEOPLE}/7`, { as: 'reader' });
      answered++;
      if (answer.status === 200) return;
      const key = `${answer.status} ${JSON.parse(answer.body).code}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    };
    // Reads on new connections, handed to the workers in turn, for as long as the new worker starts and loads.
    await until(async () => {
      for (let i = 0; i < 10; i++) await read();
      return (await gaugeOf(relay, 'ambit_relay_processes')) === 2;
    }, 'the worker is back');
    for (let i = 0; i < 10; i++) await read();
    assert.deepEqual(Object.fromEntries(failures), {}, `${answered} reads`);
    assert.equal(await gaugeOf(relay, 'ambit_relay_readiness_fully_ready'), 1);
  });
});

describe('ambit relay serve --workers 2 when a reload is asked while a worker starts again', () => {
  let fixture: ReloadFixture;
  let relay: Served;
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    // The people table loads long after the districts: a worker started again has read them by then.
    fixture.writePeople(peopleCsv(LARGE_PEOPLE));
    relay = await serve(fixture, ['--workers', '2'], { AMBIT_LOG_LEVEL: 'info' });
  });
  after(async () => {
    await relay.stop();
    fixture.remove();
  });

  it('runs the reload in that worker once it has loaded, so every worker serves the new data', async () => {
    const workers = workerPids(relay);
    process.kill(workers[0] as number, 'SIGKILL');
    // The new worker has read districts.csv and is still loading when the source changes and the reload runs.
    const restarted = () => relay.output().slice(relay.output().indexOf('starting it again'));
    await until(
      () =>
        relay.output().includes('starting it again') &&
        /"table_id":"district_table"[^\n]*"msg":"table loaded"/.test(restarted()),
      'the worker started again has loaded the districts',
    );
    fixture.writeDistricts('code,name\na,Alpha\nb,Beta\nc,Gamma\nd,Delta\n');
    const answer = await call(`${relay.adminUrl}/admin/v1/datasets/people/tables/district_table/reload`, {
      method: 'POST',
      as: 'admin_only',
    });
    assert.equal(answer.status, 200, answer.body);
    await until(
      async () => (await gaugeOf(relay, 'ambit_relay_processes')) === 2,
      'the worker is back',
      true,
    );
    const DISTRICTS = '/v1/datasets/people/entities/district/records?limit=10';
    for (let i = 0; i < 6; i++) {
      assert.equal(json(await call(`${relay.url}${DISTRICTS}`, { as: 'reader' })).data.length, 4);
    }
  });
});

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
async function startSlowRequest(url: string) {
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
      `POST ${QUERY} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      `authorization: Bearer ${RELOAD_KEYS.reader}`,
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

/** The workers: the primary's children running the same command (a build tool may be another child). */
function workerPids(relay: Served): number[] {
  return execFileSync('pgrep', ['-P', String(relay.child.pid), '-f', 'relay serve'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

async function gaugeOf(relay: Served, name: string): Promise<number> {
  const metrics = await call(`${relay.adminUrl}/metrics`, { as: 'metrics_only' });
  const line = metrics.body.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return Number(line?.split(' ').pop());
}

async function until(check: () => boolean | Promise<boolean>, what: string, slow = false): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, slow ? 100 : 20));
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

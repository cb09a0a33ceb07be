// The primary's handling of its workers, with stand-in workers that speak the cluster messages and load nothing:
// a worker that keeps dying right after it starts is started again ever more slowly, and a fork that fails (no
// memory for a new process, the Node binary replaced by an upgrade) is retried without taking the primary down.
import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../../test/e2e/stop-while-starting.ts';
import {
  createReloadFixture,
  RELOAD_KEYS,
  type ReloadFixture,
  reloadEnv,
} from '../../../test/relay/reload-fixture.ts';
import { systemClock } from '../../platform/clock.ts';
import { ConfigError } from '../../platform/config/config-error.ts';
import { createLogger } from '../../platform/log.ts';
import { systemRandom } from '../../platform/random.ts';
import { loadRelayConfig } from '../config/load-relay-config.ts';
import { startRelayPrimary } from './start-relay-primary.ts';

/**
 * A worker that says it listens and answers nothing else. `STUB_CRASH_RESTARTED=1`: a worker started again exits
 * (code 3) as soon as it has said so. `STUB_LOADING=1`: it never says so, as a worker still loading its sources.
 */
const STUB = `
const restarted = process.env.AMBIT_RELAY_WORKER_RESTARTED === '1';
process.on('SIGTERM', () => process.exit(0));
if (process.env.STUB_LOADING !== '1') process.send({ kind: 'ambit:listening', url: 'http://127.0.0.1:9' }, () => {
  if (restarted && process.env.STUB_CRASH_RESTARTED === '1') process.exit(3);
});
setInterval(() => {}, 60_000);
`;

interface LogLine {
  readonly msg: string;
  readonly worker?: number;
  readonly restart_in_ms?: number;
  readonly err_message?: string;
}

describe('the --workers primary with stand-in workers', () => {
  let dir: string;
  let fixture: ReloadFixture;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ambit-primary-'));
    const stub = join(dir, 'stub-worker.mjs');
    writeFileSync(stub, STUB);
    cluster.setupPrimary({ exec: stub, args: [], execArgv: [], silent: true });
    fixture = createReloadFixture();
  });
  after(() => {
    fixture.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (workers: number) => {
    const lines: LogLine[] = [];
    const destination = {
      write: (line: string) => lines.push(JSON.parse(line)),
    } as unknown as NodeJS.WritableStream;
    const logger = createLogger({ name: 'primary-test', level: 'info', destination });
    const loaded = loadRelayConfig(fixture.configPath, reloadEnv());
    return {
      lines,
      primary: startRelayPrimary(loaded, workers, { logger, clock: systemClock, random: systemRandom }),
    };
  };

  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 20_000;
    while (!check()) {
      assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('waits longer before each start of a worker that dies right after starting', async () => {
    process.env.STUB_CRASH_RESTARTED = '1';
    const { lines, primary } = start(1);
    const running = await primary;
    try {
      const exits = () => lines.filter((line) => line.msg.startsWith('relay worker exited'));
      const [first] = Object.values(cluster.workers ?? {});
      first?.process.kill('SIGKILL');
      await until(() => exits().length >= 3, 'the worker died three times');
      assert.deepEqual(
        exits()
          .slice(0, 3)
          .map((line) => line.restart_in_ms),
        [1000, 2000, 4000],
      );
    } finally {
      delete process.env.STUB_CRASH_RESTARTED;
      await running.close();
    }
  });

  it('fails to start, leaving no worker behind, when the admin audit file cannot be written', async () => {
    // The admin listener writes the primary's own audit chain: a file whose last record does not verify.
    const withAdmin = createReloadFixture({ adminBind: '127.0.0.1:0' });
    writeFileSync(join(withAdmin.dir, 'audit.jsonl'), 'not an audit record\n');
    const logger = createLogger({ name: 'primary-test', level: 'silent' });
    try {
      const loaded = loadRelayConfig(withAdmin.configPath, reloadEnv());
      await assert.rejects(
        startRelayPrimary(loaded, 2, { logger, clock: systemClock, random: systemRandom }),
        (error: unknown) =>
          error instanceof ConfigError && error.issues.some((issue) => issue.code === 'audit.chain_invalid'),
      );
      // A start that failed serves nothing: its workers would keep the public port (and the process) alive.
      assert.deepEqual(Object.keys(cluster.workers ?? {}), []);
    } finally {
      withAdmin.remove();
    }
  });

  it('opens the admin listener while the workers load their sources at the first start', async () => {
    // A large source takes minutes to load: meanwhile probes and scrapes reach the admin listener, as with one process.
    process.env.STUB_LOADING = '1';
    const port = await freePort();
    const withAdmin = createReloadFixture({ adminBind: `127.0.0.1:${port}` });
    const logger = createLogger({ name: 'primary-test', level: 'silent' });
    const stop = new AbortController();
    const starting = startRelayPrimary(
      loadRelayConfig(withAdmin.configPath, reloadEnv()),
      2,
      { logger, clock: systemClock, random: systemRandom },
      stop.signal,
    );
    const stopped = starting.then(
      () => assert.fail('the start went on although no worker said it listens'),
      (error: unknown) => error,
    );
    const admin = `http://127.0.0.1:${port}`;
    const operator = { authorization: `Bearer ${RELOAD_KEYS.operator}` };
    try {
      // Refused connections until the listener opens; the start itself never completes here.
      const deadline = Date.now() + 20_000;
      let healthz: Response | undefined;
      while (healthz === undefined) {
        assert.ok(Date.now() < deadline, 'timed out waiting until the admin listener answered');
        healthz = await fetch(`${admin}/healthz`).catch(() => undefined);
        if (healthz === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(healthz.status, 200);
      const ready = await fetch(`${admin}/ready`);
      assert.equal(ready.status, 503);
      const problem = (await ready.json()) as { code: string; detail: string; loaded_count: number };
      assert.equal(problem.code, 'schema.resource_unavailable');
      assert.equal(problem.loaded_count, 0);
      assert.match(problem.detail, /2 of 2 relay processes .*starting/);
      const metrics = await fetch(`${admin}/metrics`, { headers: operator });
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /^ambit_relay_processes 0$/m);
      // Nothing is queued before the first load is over, as with one process.
      const reload = await fetch(`${admin}/admin/v1/reload`, { method: 'POST', headers: operator });
      assert.equal(reload.status, 503);
      assert.equal(reload.headers.get('retry-after'), '5');
      assert.match(((await reload.json()) as { detail: string }).detail, /first load is not over/);
    } finally {
      delete process.env.STUB_LOADING;
      stop.abort();
      await stopped;
      withAdmin.remove();
    }
    // Stopped while starting: no worker is left, and the admin port is free again. Each has exited; node:cluster
    // drops one from its list once its channel has closed too, which may come a moment after its exit.
    for (const worker of Object.values(cluster.workers ?? {}))
      assert.ok(worker?.isDead(), 'every worker exited');
    await until(
      () => Object.keys(cluster.workers ?? {}).length === 0,
      'node:cluster has dropped every worker',
    );
    await assert.rejects(fetch(`${admin}/healthz`));
  });

  it('retries a restart whose fork fails, whether the failure is thrown or reported later', async () => {
    const { lines, primary } = start(1);
    const running = await primary;
    const fork = cluster.fork;
    const execPath = process.execPath;
    let forks = 0;
    cluster.fork = (env) => {
      forks++;
      if (forks === 1) throw Object.assign(new Error('spawn ENOMEM'), { code: 'ENOMEM' });
      // A binary that is not there: spawn reports ENOENT as an 'error' event, with no 'exit' after it.
      process.execPath = join(dir, 'no-such-node');
      try {
        return fork.call(cluster, env);
      } finally {
        process.execPath = execPath;
      }
    };
    try {
      const failed = () => lines.filter((line) => line.msg === 'restart failed; trying again');
      const [first] = Object.values(cluster.workers ?? {});
      first?.process.kill('SIGKILL');
      await until(() => failed().length >= 2, 'two restarts failed');
      assert.match(String(failed()[0]?.err_message), /ENOMEM/);
      assert.match(String(failed()[1]?.err_message), /ENOENT/);
    } finally {
      cluster.fork = fork;
      process.execPath = execPath;
      await running.close();
    }
  });
});

// `ambit relay serve --workers 2` with a worker that stops answering without dying (SIGSTOP, a process frozen by
// its host): an admin reload is not held forever by it. The worker is left out of the reload's answer once it has
// answered none of the primary's messages for its bound (twice `server.request_timeout` and 5 s), as a worker that
// exited would be; with every worker stopped, the reload answers the retryable 503.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createReloadFixture, type ReloadFixture } from '../relay/reload-fixture.ts';
import { call, type Served, serve, until, workerPids } from './relay-scale-fixture.ts';

describe('ambit relay serve --workers 2 when a worker stops answering', () => {
  let fixture: ReloadFixture;
  let relay: Served;
  let workers: number[] = [];
  const resume = () => {
    for (const pid of workers) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Already gone.
      }
    }
  };
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    // A short request timeout keeps the bound on a silent worker short.
    const config = readFileSync(fixture.configPath, 'utf8');
    writeFileSync(
      fixture.configPath,
      config.replace('  bind: 127.0.0.1:0\n', '  bind: 127.0.0.1:0\n  request_timeout: 250ms\n'),
    );
    relay = await serve(fixture, ['--workers', '2']);
    workers = workerPids(relay);
    assert.equal(workers.length, 2);
  });
  after(async () => {
    resume();
    await relay?.stop();
    fixture?.remove();
  });

  const reload = () => call(`${relay.adminUrl}/admin/v1/reload`, { method: 'POST', as: 'admin_only' });

  it('answers a reload with the outcome of the worker that still answers', { timeout: 60_000 }, async () => {
    process.kill(workers[0] as number, 'SIGSTOP');
    const answer = await reload();
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body).counts, { total: 2, succeeded: 2, failed: 0 });
  });

  it('says which process keeps /ready from answering 200', { timeout: 60_000 }, async () => {
    const answer = await call(`${relay.adminUrl}/ready`);
    assert.equal(answer.status, 503, answer.body);
    assert.match(JSON.parse(answer.body).detail, /1 of 2 relay processes not running or not answering/);
  });

  it('answers 503 "no relay process answered" when every worker is stopped', {
    timeout: 60_000,
  }, async () => {
    process.kill(workers[1] as number, 'SIGSTOP');
    const answer = await reload();
    assert.equal(answer.status, 503, answer.body);
    assert.match(JSON.parse(answer.body).detail, /no relay process answered the reload/);
  });

  it('reloads in both once they answer again', { timeout: 60_000 }, async () => {
    resume();
    await until(async () => (await call(`${relay.adminUrl}/ready`)).status === 200, '/ready is 200', true);
    const answer = await reload();
    assert.equal(answer.status, 200, answer.body);
    assert.doesNotMatch(relay.output(), /unhandled/);
  });
});

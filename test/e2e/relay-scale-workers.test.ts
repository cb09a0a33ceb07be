// Scale-out with real processes: two relays from one config accept each other's cursors and agree on ETags;
// `--workers N` shares one port, reloads every worker through the admin listener, sums metrics, keeps one audit
// chain per worker and stops on SIGTERM; a bad source stops every worker.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyAuditFile } from '../../src/platform/audit/audit-cli.ts';
import { parsePrometheusText } from '../helpers/parse-prometheus-text.ts';
import {
  createReloadFixture,
  peopleCsv,
  RELOAD_AUDIT_SECRET,
  type ReloadFixture,
  reloadEnv,
} from '../relay/reload-fixture.ts';
import { call, json, PEOPLE, ROOT, type Served, serve, useServedWorkers } from './relay-scale-fixture.ts';

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
  const served = useServedWorkers();

  it('announces both listeners once, for two workers', () => {
    assert.match(served.relay.output(), /listening on http:\S+ \(2 workers\)/);
    assert.equal(served.relay.output().match(/listening on/g)?.length, 1);
    assert.ok(served.relay.adminUrl);
  });

  it('serves reads and a paginated walk from the shared port, whichever worker answers', async () => {
    for (let i = 0; i < 10; i++)
      assert.equal(json(await call(`${served.relay.url}${PEOPLE}?limit=3`, { as: 'reader' })).data.length, 3);
    const ids: number[] = [];
    let cursor: string | undefined;
    do {
      const body = json(
        await call(`${served.relay.url}${PEOPLE}?limit=7${cursor ? `&cursor=${cursor}` : ''}`, {
          as: 'reader',
        }),
      );
      ids.push(...body.data.map((row) => row.id));
      cursor = body.pagination.next_cursor;
    } while (cursor !== undefined);
    assert.equal(ids.length, 30);
  });

  it('reloads every worker through the admin listener of the primary', async () => {
    served.fixture.writePeople(peopleCsv(40));
    const answer = await call(`${served.relay.adminUrl}/admin/v1/reload`, { method: 'POST', as: 'operator' });
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), {
      status: 'ok',
      counts: { total: 2, succeeded: 2, failed: 0 },
    });
    for (let i = 0; i < 8; i++) {
      assert.equal(
        json(await call(`${served.relay.url}${PEOPLE}?limit=100`, { as: 'reader' })).data.length,
        40,
      );
    }
    const table = await call(`${served.relay.adminUrl}/admin/v1/datasets/people/tables/people_table/reload`, {
      method: 'POST',
      as: 'admin_only',
    });
    assert.deepEqual(JSON.parse(table.body), { status: 'ok', counts: { reloaded: 1 } });
  });

  it('sums metrics over the workers and reports readiness and posture for all of them', async () => {
    const metrics = await call(`${served.relay.adminUrl}/metrics`, { as: 'metrics_only' });
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
    const posture = JSON.parse(
      (await call(`${served.relay.adminUrl}/admin/v1/posture`, { as: 'ops_only' })).body,
    );
    assert.equal(posture.runtime.processes, 2);
    assert.equal(posture.data.ready, true);
    assert.equal((await call(`${served.relay.adminUrl}/ready`)).status, 200);
  });

  it('sums into text a strict exposition-format parser reads: each family once, cumulative buckets, +Inf = count', async () => {
    // Odd paths (no route, encoded quotes and backslashes) are answered but never become label values.
    for (const path of ['/nope', '/v1/datasets/people/entities/%22x%5C%0A/records', `${PEOPLE}/999`]) {
      await call(`${served.relay.url}${path}`, { as: 'reader' });
    }
    const metrics = await call(`${served.relay.adminUrl}/metrics`, { as: 'metrics_only' });
    assert.equal(metrics.status, 200);
    const families = parsePrometheusText(metrics.body);
    for (const family of families.values()) {
      assert.ok(family.help, `${family.name} has HELP`);
      assert.notEqual(family.type, 'untyped', `${family.name} has TYPE`);
    }
    const latency = families.get('ambit_relay_http_request_duration_seconds');
    assert.equal(latency?.type, 'histogram');
    assert.ok(latency.samples.length > 0);
    const routes = new Set(latency.samples.map((sample) => sample.labels.route));
    assert.ok([...routes].every((route) => route?.startsWith('/')));
    assert.ok(![...routes].some((route) => /nope|"|\\/.test(String(route))), [...routes].join(' '));
    const processes = families.get('ambit_relay_processes')?.samples[0]?.value;
    assert.equal(processes, 2);
  });

  it('keeps one verifiable audit chain per worker, and the admin requests in the primary chain', () => {
    const secret = Buffer.from(RELOAD_AUDIT_SECRET);
    for (const name of ['audit.worker-1.jsonl', 'audit.worker-2.jsonl', 'audit.jsonl']) {
      const path = join(served.fixture.dir, name);
      assert.ok(existsSync(path), name);
      const result = verifyAuditFile(path, secret);
      assert.ok(result.ok, `${name}: ${JSON.stringify(result)}`);
      assert.ok(result.count > 0, `${name} holds records: both workers served requests`);
    }
  });

  it('stops every worker on SIGTERM and exits 0', async () => {
    assert.equal(await served.relay.stop(), 0);
    assert.match(served.relay.output(), /draining/);
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

// `ambit relay serve --workers 2` starting a dead worker again: retried until its source loads (one worker down
// meanwhile), handed no request before its data is loaded, and running in it a reload asked while it starts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { peopleCsv } from '../relay/reload-fixture.ts';
import {
  call,
  json,
  PEOPLE,
  type Served,
  until,
  useServedWorkers,
  workerPids,
} from './relay-scale-fixture.ts';

/** People rows in a table that takes a noticeable while to load. */
const LARGE_PEOPLE = 300_000;

describe('ambit relay serve --workers 2 when a worker dies and cannot start again at once', () => {
  const served = useServedWorkers();

  const gauge = (name: string) => gaugeOf(served.relay, name);
  const posture = async () =>
    JSON.parse((await call(`${served.relay.adminUrl}/admin/v1/posture`, { as: 'ops_only' })).body);

  it('retries the start until the source is fixed, reporting one worker down meanwhile', async () => {
    const workers = workerPids(served.relay);
    assert.equal(workers.length, 2);
    served.fixture.writePeople('id,district,born\n1,a,PIN-4711\n');
    process.kill(workers[0] as number, 'SIGKILL');
    await until(
      () => (served.relay.output().match(/restart failed; trying again/g)?.length ?? 0) >= 1,
      'a restart failed',
    );
    assert.match(
      served.relay.output(),
      /ingest\.type_mismatch: table people_table \(data row 1, column \\"born\\"\)/,
    );
    assert.doesNotMatch(served.relay.output(), /PIN-4711/);
    // Metrics, posture and readiness tell the same story: one of two workers runs, the served.relay is not fully ready.
    assert.equal(await gauge('ambit_relay_processes'), 1);
    assert.equal(await gauge('ambit_relay_processes_configured'), 2);
    assert.equal(await gauge('ambit_relay_readiness_fully_ready'), 0);
    const down = await posture();
    assert.deepEqual([down.runtime.processes, down.runtime.processes_configured], [1, 2]);
    assert.equal(down.data.ready, false);
    assert.equal((await call(`${served.relay.adminUrl}/ready`)).status, 503);
    // The other worker keeps serving the data it loaded.
    assert.equal(
      json(await call(`${served.relay.url}${PEOPLE}?limit=100`, { as: 'reader' })).data.length,
      30,
    );

    served.fixture.writePeople(peopleCsv(30));
    await until(async () => (await gauge('ambit_relay_processes')) === 2, 'the worker is back', true);
    assert.equal(await gauge('ambit_relay_readiness_fully_ready'), 1);
    const up = await posture();
    assert.deepEqual([up.runtime.processes, up.runtime.processes_configured], [2, 2]);
    assert.equal(up.data.ready, true);
    assert.equal((await call(`${served.relay.adminUrl}/ready`)).status, 200);
    for (let i = 0; i < 6; i++) {
      assert.equal(
        json(await call(`${served.relay.url}${PEOPLE}?limit=100`, { as: 'reader' })).data.length,
        30,
      );
    }
  });
});

describe('ambit relay serve --workers 2 when a worker dies', () => {
  // Enough rows that a load lasts long enough for many requests to arrive meanwhile.
  const served = useServedWorkers({ prepare: (fixture) => fixture.writePeople(peopleCsv(LARGE_PEOPLE)) });

  it('hands no request to the worker started again before its data is loaded', async () => {
    const workers = workerPids(served.relay);
    assert.equal(workers.length, 2);
    process.kill(workers[0] as number, 'SIGKILL');
    // Requests start once the primary knows the worker is gone, so none is handed to the dying process.
    await until(
      async () => (await gaugeOf(served.relay, 'ambit_relay_processes')) === 1,
      'the worker is down',
      true,
    );
    const failures = new Map<string, number>();
    let answered = 0;
    const read = async () => {
      const answer = await call(`${served.relay.url}${PEOPLE}/7`, { as: 'reader' });
      answered++;
      if (answer.status === 200) return;
      const key = `${answer.status} ${JSON.parse(answer.body).code}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    };
    // Reads on new connections, handed to the workers in turn, for as long as the new worker starts and loads.
    await until(async () => {
      for (let i = 0; i < 10; i++) await read();
      return (await gaugeOf(served.relay, 'ambit_relay_processes')) === 2;
    }, 'the worker is back');
    for (let i = 0; i < 10; i++) await read();
    assert.deepEqual(Object.fromEntries(failures), {}, `${answered} reads`);
    assert.equal(await gaugeOf(served.relay, 'ambit_relay_readiness_fully_ready'), 1);
  });
});

describe('ambit relay serve --workers 2 when a reload is asked while a worker starts again', () => {
  // The people table loads long after the districts: a worker started again has read them by then.
  const served = useServedWorkers({
    prepare: (fixture) => fixture.writePeople(peopleCsv(LARGE_PEOPLE)),
    env: { AMBIT_LOG_LEVEL: 'info' },
  });

  it('runs the reload in that worker once it has loaded, so every worker serves the new data', async () => {
    const workers = workerPids(served.relay);
    process.kill(workers[0] as number, 'SIGKILL');
    // The new worker has read districts.csv and is still loading when the source changes and the reload runs.
    const restarted = () => served.relay.output().slice(served.relay.output().indexOf('starting it again'));
    await until(
      () =>
        served.relay.output().includes('starting it again') &&
        /"table_id":"district_table"[^\n]*"msg":"table loaded"/.test(restarted()),
      'the worker started again has loaded the districts',
    );
    served.fixture.writeDistricts('code,name\na,Alpha\nb,Beta\nc,Gamma\nd,Delta\n');
    const answer = await call(
      `${served.relay.adminUrl}/admin/v1/datasets/people/tables/district_table/reload`,
      {
        method: 'POST',
        as: 'admin_only',
      },
    );
    assert.equal(answer.status, 200, answer.body);
    await until(
      async () => (await gaugeOf(served.relay, 'ambit_relay_processes')) === 2,
      'the worker is back',
      true,
    );
    const DISTRICTS = '/v1/datasets/people/entities/district/records?limit=10';
    for (let i = 0; i < 6; i++) {
      assert.equal(json(await call(`${served.relay.url}${DISTRICTS}`, { as: 'reader' })).data.length, 4);
    }
  });
});

async function gaugeOf(relay: Served, name: string): Promise<number> {
  const metrics = await call(`${relay.adminUrl}/metrics`, { as: 'metrics_only' });
  const line = metrics.body.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return Number(line?.split(' ').pop());
}

// `ambit relay serve --workers 2` with a table refreshed by `mtime`: the primary runs the refresh rounds for every
// worker at once, so a changed file is loaded by all of them in one round, and once the primary says so every
// worker serves it (no worker left on the old data until a timer of its own fires).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createReloadFixture, type ReloadFixture } from '../relay/reload-fixture.ts';
import { call, PEOPLE, type Served, serve, until, workerPids } from './relay-scale-fixture.ts';

const ROUND_DONE = /"table_id":"people_table"[^\n]*refresh reloaded the table in every relay process/;

describe('ambit relay serve --workers 2 with a table refreshed by mtime', () => {
  let fixture: ReloadFixture;
  let relay: Served;
  before(async () => {
    fixture = createReloadFixture({
      adminBind: '127.0.0.1:0',
      peopleRefresh: '{ mode: mtime, interval: 1s }',
    });
    relay = await serve(fixture, ['--workers', '2'], { AMBIT_LOG_LEVEL: 'info' });
  });
  after(async () => {
    await relay?.stop();
    fixture?.remove();
  });

  const districtOf = async (id: number) => {
    const answer = await call(`${relay.url}${PEOPLE}/${id}`, { as: 'reader' });
    assert.equal(answer.status, 200, answer.body);
    return (JSON.parse(answer.body) as { district: string }).district;
  };

  it('loads a changed file in every worker in one round, said once by the primary', async () => {
    assert.equal(workerPids(relay).length, 2);
    assert.notEqual(await districtOf(1), 'moved');
    fixture.writePeople('id,district,born\n1,moved,1990-01-01\n2,moved,1991-02-03\n');
    await until(() => ROUND_DONE.test(relay.output()), 'the primary reported the refresh round');
    const line = relay
      .output()
      .split('\n')
      .find((candidate) => ROUND_DONE.test(candidate));
    assert.match(String(line), /"trigger":"mtime"/);
    // Both workers usually load it in the same round; one that read the file a moment before it was written loads
    // it in the next, and the primary says so only once both serve it.
    assert.match(String(line), /"processes":2,"changed":[12]/);
    // Every connection, whichever worker it reaches, serves the new file from the moment the round is reported.
    for (let i = 0; i < 8; i++) assert.equal(await districtOf(1), 'moved');
    // Each worker said it reloaded; no worker polled on a timer of its own before the round.
    const applied = relay.output().match(/"trigger":"mtime"[^\n]*"msg":"reload applied"/g) ?? [];
    assert.equal(applied.length, 2, relay.output());
  });

  it('a round that finds nothing new says nothing', async () => {
    const rounds = () => relay.output().match(new RegExp(ROUND_DONE.source, 'g'))?.length ?? 0;
    const before = rounds();
    // Two rounds (a second apart) pass without a change.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.equal(rounds(), before);
  });
});

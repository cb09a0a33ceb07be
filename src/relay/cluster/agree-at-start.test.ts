import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../platform/log.ts';
import type { ProcessStatus } from '../admin/admin-backend.ts';
import type { ReloadOutcome } from '../reload/reload-outcome.ts';
import { agreeAtStart } from './agree-at-start.ts';

const serving = (generation: string): ProcessStatus => ({
  running: true,
  ready: true,
  readiness: { total: 1, loaded: 1, failed: 0 },
  waiting: [],
  generation,
  loadedAt: 0,
});
const loading: ProcessStatus = { ...serving('x'), ready: false, generation: undefined };
const ok: ReloadOutcome = {
  ok: true,
  counts: { total: 1, succeeded: 1, failed: 0 },
  failures: [],
  generation: 'g',
};

/** Statuses answered in turn (the last one again once they run out), reloads scripted, log lines kept. */
function harness(statuses: ProcessStatus[][], reload: () => Promise<ReloadOutcome>) {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  let reloads = 0;
  let asked = 0;
  const controller = new AbortController();
  const run = () =>
    agreeAtStart({
      status: async () => statuses[Math.min(asked++, statuses.length - 1)] as ProcessStatus[],
      reloadAll: () => {
        reloads++;
        return reload();
      },
      logger: createLogger({ name: 'test', level: 'debug', destination }),
      signal: controller.signal,
      pollMs: 1,
    });
  return { lines, run, controller, reloads: () => reloads, asked: () => asked };
}

describe('agreeAtStart', () => {
  it('reloads nothing when every worker serves the same data', async () => {
    const h = harness([[serving('a'), serving('a')]], async () => ok);
    await h.run();
    assert.equal(h.reloads(), 0);
    assert.deepEqual(h.lines, []);
  });

  it('waits until every worker serves data, then reloads them all once when they differ', async () => {
    const h = harness(
      [
        [serving('a'), loading],
        [serving('a'), { ...loading, running: false }],
        [serving('a'), serving('b')],
      ],
      async () => ok,
    );
    await h.run();
    assert.equal(h.asked(), 3);
    assert.equal(h.reloads(), 1);
    assert.match(
      h.lines[0]?.msg ?? '',
      /loaded different data at start; every one reloaded, and they now agree/,
    );
  });

  it('names the tables that still differ after the reload in a warning', async () => {
    const h = harness([[serving('a'), serving('b')]], async () => ({
      ...ok,
      differing: [{ dataset_id: 'd', table_id: 't' }],
    }));
    await h.run();
    assert.equal(h.lines[0]?.level, 40);
    assert.deepEqual(h.lines[0]?.tables, ['d/t']);
  });

  it('reports a reload that failed, or that no worker answered, and never throws', async () => {
    const failed = harness([[serving('a'), serving('b')]], async () => ({
      ok: false,
      counts: { total: 1, succeeded: 0, failed: 1 },
      failures: [{ dataset_id: 'd', table_id: 't', code: 'ingest.source_unavailable' }],
      generation: 'a',
    }));
    await failed.run();
    assert.equal(failed.lines[0]?.level, 50);
    assert.deepEqual(failed.lines[0]?.failures, ['d/t: ingest.source_unavailable']);

    const unanswered = harness([[serving('a'), serving('b')]], async () => {
      throw new Error('no worker answered the reload');
    });
    await unanswered.run();
    assert.equal(unanswered.lines[0]?.level, 40);
    assert.match(unanswered.lines[0]?.msg ?? '', /no process answered/);
  });

  it('stops waiting, reloading nothing, once the relay stops', async () => {
    const h = harness([[serving('a'), loading]], async () => ok);
    const done = h.run();
    h.controller.abort();
    await done;
    assert.equal(h.reloads(), 0);
  });
});

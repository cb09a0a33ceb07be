// Identical reads asked for while the first waits unsent share its statement and its answer: they would have run
// in the same implicit transaction, so nothing they could be told differs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerReads, errorResponse } from '../../../../test/helpers/fake-postgres-backend.ts';
import { GUARD, useFakeBackend } from './live-connection-test-support.ts';

const SELECT = 'SELECT id, name FROM t WHERE district = $1 ORDER BY id LIMIT $2';
const OTHER_GUARD = "SELECT set_config('transaction_read_only', 'on', true), 2";

/** Lets the reads asked for so far leave: later reads go in another batch. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('identical live reads of one turn', () => {
  const setup = useFakeBackend();

  /** Answers read n with one row naming n, and counts the SELECTs the server ran. */
  function numberedAnswers(): { readonly executed: number } {
    let executed = 0;
    answerReads(setup.backend, (read) => {
      executed = read;
      return { rows: [[`row-${read}`, `read ${read}`]] };
    });
    return {
      get executed() {
        return executed;
      },
    };
  }

  it('run once, and each caller gets the rows as a list of its own', async () => {
    const server = numberedAnswers();
    const live = await setup.open();
    const reads = [1, 2, 3].map(() => live.read(GUARD, SELECT, ['district-07', 11]));
    const [first, second, third] = await Promise.all(reads);
    assert.equal(server.executed, 1, 'one SELECT for the three reads');
    assert.deepEqual(first, [['row-1', 'read 1']]);
    assert.deepEqual(second, first);
    assert.deepEqual(third, first);
    first?.pop();
    assert.deepEqual(second, [['row-1', 'read 1']], 'dropping a row from one answer leaves the others whole');
    assert.equal(live.inFlight, 0);
    assert.deepEqual(
      setup.backend.received.map((message) => message.type).join(''),
      'PBEPBES',
      'the guard, one SELECT, one Sync',
    );
  });

  it('with other values, another statement or another guard run on their own', async () => {
    const server = numberedAnswers();
    const live = await setup.open();
    const answers = await Promise.all([
      live.read(GUARD, SELECT, ['district-07', 11]),
      live.read(GUARD, SELECT, ['district-08', 11]),
      live.read(GUARD, SELECT, ['district-07', 12]),
      live.read(GUARD, `${SELECT} `, ['district-07', 11]),
      live.read(OTHER_GUARD, SELECT, ['district-07', 11]),
      live.read(GUARD, SELECT, ['district-07']),
      // A number and the text that spells it are not taken for one value.
      live.read(GUARD, SELECT, ['district-07', '11']),
    ]);
    assert.equal(server.executed, 7);
    assert.equal(new Set(answers.map((rows) => rows[0]?.[0])).size, 7, 'each read got its own answer');
  });

  it('array values are compared element by element', async () => {
    const server = numberedAnswers();
    const live = await setup.open();
    const text = 'SELECT id, name FROM t WHERE district = ANY($1)';
    const [first, same, longer, other] = await Promise.all([
      live.read(GUARD, text, [['a', 'b']]),
      live.read(GUARD, text, [['a', 'b']]),
      live.read(GUARD, text, [['a', 'b', 'c']]),
      live.read(GUARD, text, [['a', 'c']]),
    ]);
    assert.equal(server.executed, 3);
    assert.deepEqual(same, first);
    assert.notDeepEqual(longer, first);
    assert.notDeepEqual(other, first);
  });

  it('a read asked for once the first was sent runs again: its answer may be newer', async () => {
    const server = numberedAnswers();
    const live = await setup.open();
    const first = live.read(GUARD, SELECT, ['district-07', 11]);
    await nextTurn();
    const later = live.read(GUARD, SELECT, ['district-07', 11]);
    assert.deepEqual(await first, [['row-1', 'read 1']]);
    assert.deepEqual(await later, [['row-2', 'read 2']]);
    assert.equal(server.executed, 2);
  });

  it('prepared and unprepared reads of one text run on their own', async () => {
    const server = numberedAnswers();
    const live = await setup.open();
    const [prepared, unprepared] = await Promise.all([
      live.read(GUARD, SELECT, ['district-07', 11], true),
      live.read(GUARD, SELECT, ['district-07', 11], false),
    ]);
    assert.equal(server.executed, 2);
    assert.notDeepEqual(prepared, unprepared);
  });

  it('fail together when their statement fails', async () => {
    answerReads(setup.backend, () => ({
      error: errorResponse('22P02', 'invalid input syntax for type integer'),
    }));
    const live = await setup.open();
    const reads = [live.read(GUARD, SELECT, ['x', 11]), live.read(GUARD, SELECT, ['x', 11])];
    for (const read of reads) {
      await assert.rejects(read, (error: Error) => (error as Error & { code?: string }).code === '22P02');
    }
    assert.equal(live.usable, true);
  });

  it('go out again together when another read of the batch stopped it before them', async () => {
    let executed = 0;
    answerReads(setup.backend, (read) => {
      executed = read;
      return read === 1
        ? { error: errorResponse('22P02', 'invalid input syntax for type integer') }
        : { rows: [[`row-${read}`, `read ${read}`]] };
    });
    const live = await setup.open();
    const refused = live.read(GUARD, SELECT, ['bad', 11]);
    const twins = [
      live.read(GUARD, SELECT, ['district-07', 11]),
      live.read(GUARD, SELECT, ['district-07', 11]),
    ];
    await assert.rejects(refused, (error: Error) => (error as Error & { code?: string }).code === '22P02');
    assert.deepEqual(await Promise.all(twins), [[['row-2', 'read 2']], [['row-2', 'read 2']]]);
    assert.equal(executed, 2, 'the skipped read went out once more, for both callers');
  });

  it('fail together when the connection is lost', async () => {
    setup.backend.onMessage = (message, socket) => {
      if (message.type === 'S') socket.destroy();
    };
    const live = await setup.open();
    const reads = [live.read(GUARD, SELECT, ['x', 11]), live.read(GUARD, SELECT, ['x', 11])];
    for (const read of reads) await assert.rejects(read, /terminated/);
    assert.equal(live.usable, false);
  });
});

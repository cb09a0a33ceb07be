// Replies a live connection refuses: malformed messages, and answers past 64 MiB, without buffering them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  answerReads,
  backendMessage,
  commandComplete,
  dataRowMessage,
  readyForQuery,
} from '../../../../test/helpers/fake-postgres-backend.ts';
import { GUARD, useFakeBackend } from './live-connection-test-support.ts';
import { classifyPgError } from './read-only-session.ts';

describe('a live connection', () => {
  const setup = useFakeBackend();
  const { open } = setup;

  const GUARD_REPLIES = Buffer.concat([
    backendMessage('1'),
    backendMessage('1'),
    backendMessage('2'),
    dataRowMessage(['on', '30000']),
    commandComplete('SELECT 1'),
    backendMessage('2'),
  ]);
  const lengthHeader = (type: string, length: number) => {
    const header = Buffer.alloc(5);
    header.write(type, 0);
    header.writeInt32BE(length, 1);
    return header;
  };
  const malformed: [string, Buffer][] = [
    ['a message shorter than its own length field', lengthHeader('D', 2)],
    ['a negative message length', lengthHeader('D', -4)],
    ['a message other than a data row announced past 64 MiB', lengthHeader('C', 0x7fffffff)],
    ['a data row announcing cells it does not carry', backendMessage('D', Buffer.from([0, 3]))],
    [
      'a cell longer than its data row',
      backendMessage(
        'D',
        Buffer.concat([Buffer.from([0, 1]), lengthHeader('x', 1000).subarray(1), Buffer.from('ab')]),
      ),
    ],
    ['a negative cell count', backendMessage('D', Buffer.from([0xff, 0xff]))],
  ];
  for (const [what, reply] of malformed) {
    it(`a reply with ${what} fails the connection's reads as unavailable, and the process carries on`, async () => {
      const { backend } = setup;
      backend.onMessage = (message, socket) => {
        if (message.type === 'S') socket.write(Buffer.concat([GUARD_REPLIES, reply, readyForQuery('I')]));
      };
      const live = await open();
      await assert.rejects(live.read(GUARD, 'SELECT 1', []), (error: Error) => {
        assert.equal(classifyPgError(error), 'unavailable');
        return true;
      });
      assert.equal(live.usable, false);
    });
  }

  it('an answer past 64 MiB (one row, or rows together) fails its read as refused, not buffered; the connection carries on', async () => {
    const { backend } = setup;
    const MiB = 1024 * 1024;
    answerReads(backend, (read) => {
      if (read === 1) return { rows: [['x'.repeat(64 * MiB)]] };
      if (read === 2) return { rows: [['y'.repeat(33 * MiB)], ['z'.repeat(33 * MiB)]] };
      return { rows: [['ok']] };
    });
    // 130 MiB cross loopback: on a busy machine that can take longer than the usual 5 s read time limit, which is not
    // what this test is about.
    const live = await open(60_000);
    const reads = [1, 2, 3].map((read) => live.read(GUARD, 'SELECT $1', [read]));
    for (const read of reads.slice(0, 2)) {
      await assert.rejects(read, (error: Error) => {
        assert.equal(classifyPgError(error), 'failed');
        assert.match(error.message, /exceeds 64 MiB/);
        return true;
      });
    }
    assert.deepEqual(await reads[2], [['ok']]);
    assert.equal(live.usable, true);
    assert.deepEqual(await live.read(GUARD, 'SELECT 4', []), [['ok']]);
  });
});

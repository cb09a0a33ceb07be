// The registry_data_api connector's log of a source that stops answering: a warning naming the connection and the
// reason, held back while the same reason repeats, and a line when the source answers again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capturedLog } from '../../../test/helpers/captured-log.ts';
import { fixedClock } from '../../platform/clock.ts';
import { systemRandom } from '../../platform/random.ts';
import { createRelayConnector } from './create-relay-connector.ts';
import {
  BINDING,
  connection,
  failure,
  json,
  LOOKUP,
  useConnectorUpstream,
} from './relay-connector-fixture.ts';

const FAILED = 'source read failed';
const AGAIN = 'source answering again';
const ROW = { national_id: 'FAKE-1', deceased: false, birth_date: '1980-01-01' };

describe('registry_data_api connector: a source outage in the log', () => {
  const upstream = useConnectorUpstream();

  it('warns once a minute per reason, says how many were held back, and tells when the source answers again', async () => {
    const log = capturedLog();
    let now = Date.parse('2026-03-01T10:00:00Z');
    const clock = { ...fixedClock('2026-03-01T10:00:00Z'), now: () => now };
    const reader = upstream.connector(
      { retry: { max_attempts: 1, base_delay: 100, max_delay: 100, max_retry_after: 100 } },
      { logger: log.logger, clock },
    );
    let status = 503;
    upstream.handler = (_request, response) =>
      status === 200 ? json(response, 200, { data: [ROW] }) : json(response, status, { code: 'x' });
    for (let read = 0; read < 3; read++)
      assert.equal((await failure(reader.read(LOOKUP))).code, 'source.unavailable');
    now += 61_000;
    assert.equal((await failure(reader.read(LOOKUP))).code, 'source.unavailable');
    status = 401;
    assert.equal((await failure(reader.read(LOOKUP))).code, 'source.unavailable');
    status = 200;
    await reader.read(LOOKUP);
    await reader.read(LOOKUP);
    // A new outage after the recovery is told at once, though its reason was told less than a minute ago.
    status = 503;
    await failure(reader.read(LOOKUP));
    reader.close();
    const told = log
      .records()
      .filter((line) => line.msg === FAILED || line.msg === AGAIN)
      .map(({ msg, level, connection, reason, suppressed, failed_reads }) => ({
        msg,
        level,
        connection,
        reason,
        suppressed,
        failed_reads,
      }));
    const warn = (reason: string, suppressed?: number) => ({
      msg: FAILED,
      level: 40,
      connection: 'relay',
      reason,
      suppressed,
      failed_reads: undefined,
    });
    assert.deepEqual(told, [
      warn('source.http_503'),
      warn('source.http_503', 2),
      warn('source.http_401'),
      {
        msg: AGAIN,
        level: 30,
        connection: 'relay',
        reason: undefined,
        suppressed: undefined,
        failed_reads: 5,
      },
      warn('source.http_503'),
    ]);
  });

  it('tells nothing of reads the source answered, a record found or not', async () => {
    const log = capturedLog();
    const reader = upstream.connector({}, { logger: log.logger });
    upstream.handler = (request, response) =>
      json(response, 200, { data: request.url?.includes('FAKE-1') ? [ROW] : [] });
    await reader.read(LOOKUP);
    assert.equal((await failure(reader.read({ ...LOOKUP, value: 'FAKE-2' }))).code, 'evidence.not_available');
    reader.close();
    assert.deepEqual(
      log.records().filter((line) => line.msg === FAILED || line.msg === AGAIN),
      [],
    );
  });

  it('warns of a connection that is not configured, and of a source that cannot be reached, naming no value', async () => {
    const log = capturedLog();
    const reader = createRelayConnector(
      // Nothing listens on port 9; `other` has no token, so it is not configured.
      { relay: connection(9), other: connection(9) },
      new Map([['relay', 'relay-secret']]),
      {
        clock: fixedClock('2026-03-01T10:00:00Z'),
        random: systemRandom,
        sleep: async () => {},
        logger: log.logger,
      },
    );
    await failure(reader.read(LOOKUP));
    await failure(reader.read({ ...LOOKUP, binding: { ...BINDING, connection: 'other' } }));
    reader.close();
    const lines = log.records().filter((line) => line.msg === FAILED);
    assert.deepEqual(
      lines.map((line) => [line.connection, line.reason]),
      [
        ['relay', 'source.network'],
        ['other', 'source.not_configured'],
      ],
    );
    const text = JSON.stringify(log.records());
    assert.ok(!text.includes('FAKE-1') && !text.includes('relay-secret'), text);
  });
});

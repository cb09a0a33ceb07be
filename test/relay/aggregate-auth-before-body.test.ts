// The aggregate query POST checks the credential before it reads the body: a caller without a valid one is answered
// 401 whatever it sends (an `Expect: 100-continue` client is never asked for its body), and a body refused from a
// caller with one is audited with that caller.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { listenLocal } from '../helpers/http-checks.ts';
import { startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';
import { PAYMENTS } from './aggregates-fixture.ts';
import { assertProblem } from './assert-problem.ts';

const QUERY = `${PAYMENTS}/query`;
/** Over the public listener's 1 MiB body limit. */
const HUGE = `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`;

/**
 * Sends request headers announcing a body but not the body, and reads what the server sends until its first
 * answer is whole (or the connection closes): a `100 Continue` is an answer of its own.
 */
function headersOnly(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    const done = () => {
      socket.destroy();
      resolve(text);
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length >= end + 4 + length) done();
    });
    socket.on('error', reject);
    socket.on('close', done);
  });
}

describe('aggregate query POST: the credential before the body', () => {
  let relay: TestRelay;
  let port = 0;
  before(async () => {
    relay = await startDemoRelay();
    port = await listenLocal(relay.app);
  });
  after(() => relay?.close());

  const send = (payload: string, headers: Record<string, string> = {}) =>
    relay.inject({
      method: 'POST',
      url: QUERY,
      headers: { 'content-type': 'application/json', ...headers },
      payload,
    });
  const analyst = { authorization: `Bearer ${TEST_KEYS.analyst}` };

  it('answers 401 to `Expect: 100-continue` without a credential, never asking for the body', async () => {
    const text = await headersOnly(
      port,
      `POST ${QUERY} HTTP/1.1\r\nhost: relay\r\ncontent-type: application/json\r\n` +
        'content-length: 2\r\nexpect: 100-continue\r\n\r\n',
    );
    assert.match(text, /^HTTP\/1\.1 401 /, text.slice(0, 200));
    assert.match(text, /"code":"auth\.missing_credential"/);
    const record = relay.auditRecords().at(-1);
    assert.equal(record?.endpoint_kind, 'aggregate');
    assert.equal(record?.principal_id, null);
  });

  it('answers 401 without a valid credential, whatever the body: too large, broken, another type', async () => {
    for (const [payload, headers] of [
      [HUGE, {}],
      ['{nope', {}],
      ['measures=count', { 'content-type': 'text/plain' }],
    ] as const) {
      const response = await send(payload, headers);
      assertProblem(response, 401, 'auth.missing_credential');
      assert.equal(response.headers.vary, 'Accept');
      const record = relay.auditRecords().at(-1);
      assert.equal(record?.endpoint_kind, 'aggregate');
      assert.equal(record?.principal_id, null);
    }
    assertProblem(
      await send(HUGE, { authorization: 'Bearer not-a-key-000000000000000000000' }),
      401,
      'auth.invalid_credential',
    );
  });

  it('refuses a broken, too large or non-JSON body from a caller with a credential, and audits that caller', async () => {
    for (const [payload, status, code, type] of [
      ['{nope', 400, 'http.invalid_body', 'application/json'],
      [HUGE, 413, 'internal.payload_too_large', 'application/json'],
      ['measures=count', 415, 'http.unsupported_media_type', 'text/plain'],
    ] as const) {
      assertProblem(await send(payload, { ...analyst, 'content-type': type }), status, code);
      const record = relay.auditRecords().at(-1);
      assert.equal(record?.endpoint_kind, 'aggregate', code);
      assert.equal(record?.principal_id, 'analyst', code);
      assert.equal(record?.error_code, code);
    }
  });
});

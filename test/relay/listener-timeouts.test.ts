// The reference relay's listener time-outs: `http1_header_read_timeout` bounds how long a request's headers may take
// to arrive, `request_body_timeout` how long its body may take after them; both answer 504 internal.timeout.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem, listenLocal, sendRaw } from '../helpers/http-checks.ts';
import { startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

const withTimeouts = (server: string) => (text: string) =>
  text.replace(/^server:\n/m, `server:\n  request_timeout: 60s\n${server}`);

describe('reference listener time-outs on the relay', () => {
  let relay: TestRelay;
  let port = 0;
  before(async () => {
    relay = await startDemoRelay({
      edit: withTimeouts('  http1_header_read_timeout: 1s\n  request_body_timeout: 1s\n'),
    });
    port = await listenLocal(relay.app);
  });
  after(() => relay.close());

  it('hands both to the listener', () => {
    assert.equal(relay.app.server.headersTimeout, 1_000);
    // Node's deadline for a whole request runs from its first byte: the headers' time plus the body's.
    assert.equal(relay.app.server.requestTimeout, 2_000);
  });

  it('answers headers that never finish with 504 internal.timeout long before the request timeout', async () => {
    const response = await sendRaw(port, 'GET /healthz HTTP/1.1\r\nhost: a\r\nx-slow: ', 20_000);
    assertProblem(response, 504, 'internal.timeout');
  });

  it('answers a body that never finishes with 504 internal.timeout long before the request timeout', async () => {
    const head = [
      'POST /v1/datasets/civil_registry/aggregates/persons_by_district/query HTTP/1.1',
      'host: a',
      `authorization: Bearer ${TEST_KEYS.analyst}`,
      'content-type: application/json',
      'content-length: 100',
    ].join('\r\n');
    const response = await sendRaw(port, `${head}\r\n\r\n{"group_by":`, 20_000);
    assertProblem(response, 504, 'internal.timeout');
  });
});

describe('the relay listener without the reference time-outs', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay({ edit: withTimeouts('') });
  });
  after(() => relay.close());

  it('waits 10 s for headers and for a body, as the reference does by default', () => {
    assert.equal(relay.app.server.headersTimeout, 10_000);
    assert.equal(relay.app.server.requestTimeout, 20_000);
  });
});

// Data-Purpose as it arrives over HTTP: a header sent twice, and bytes beyond ASCII, as answered and audited.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem, listenLocal, rawRequest, sendRaw } from '../helpers/http-checks.ts';
import { startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

const PERSON = '/v1/datasets/civil_registry/entities/persons/records?person_id=per-10001';

describe('Data-Purpose over HTTP', () => {
  const demo = { relay: undefined as unknown as TestRelay, port: 0 };
  before(async () => {
    demo.relay = await startDemoRelay();
    demo.port = await listenLocal(demo.relay.app);
  });
  after(() => demo.relay.close());

  it('refuses two headers where a purpose is required, and audits no purpose for them', async () => {
    const response = await rawRequest(demo.port, PERSON, {
      headers: {
        authorization: `Bearer ${TEST_KEYS.caseworker}`,
        'data-purpose': ['https://example.org/p/a', 'https://example.org/p/b'],
      },
    });
    assertProblem(response, 400, 'auth.purpose_required');
    const record = demo.relay.auditRecords().at(-1);
    assert.equal(record?.error_code, 'auth.purpose_required');
    assert.equal(record?.purpose, null);
  });

  it('reads bytes beyond ASCII as ISO-8859-1, and records them so on one JSON line', async () => {
    // The UTF-8 bytes of `Zweck-ü`, written to the socket as they are.
    const utf8 = Buffer.from('Zweck-ü', 'utf8').toString('latin1');
    const response = await sendRaw(
      demo.port,
      `GET ${PERSON} HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n` +
        `Authorization: Bearer ${TEST_KEYS.caseworker}\r\nData-Purpose: ${utf8}\r\n\r\n`,
    );
    assert.equal(response.statusCode, 200, response.body);
    // auditRecords parses every line: the record is whole.
    assert.equal(demo.relay.auditRecords().at(-1)?.purpose, 'Zweck-Ã¼');
  });
});

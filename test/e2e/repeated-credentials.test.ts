// A credential header sent twice is refused, never resolved by picking one: Node keeps only the first
// Authorization header and joins repeated x-api-key headers, while a proxy in front may have looked at another.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sendRaw } from '../helpers/http-checks.ts';
import { startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';
import {
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';

const RECORDS = '/v1/datasets/social_protection/entities/households/records?limit=1';

function rawGet(path: string, headers: readonly string[]): string {
  return `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers.join('\r\n')}\r\n\r\n`;
}

function problemCode(body: string): string {
  return (JSON.parse(body) as { code: string }).code;
}

describe('repeated credential headers', () => {
  let relay: TestRelay;
  let relayPort: number;
  let verifier: TestVerifier;
  let verifierPort: number;

  before(async () => {
    relay = await startDemoRelay();
    await relay.app.listen({ host: '127.0.0.1', port: 0 });
    relayPort = (relay.app.server.address() as AddressInfo).port;
    verifier = await startTestVerifier();
    await verifier.verifier.app.listen({ host: '127.0.0.1', port: 0 });
    verifierPort = (verifier.verifier.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await relay?.close();
    await verifier?.close();
  });

  it('relay: one Authorization header is served; two are 401 auth.malformed_credential, even when equal', async () => {
    const key = TEST_KEYS.caseworker;
    const purpose = 'Data-Purpose: https://demo.example.gov/purpose/benefit-eligibility';
    const one = await sendRaw(relayPort, rawGet(RECORDS, [`Authorization: Bearer ${key}`, purpose]));
    assert.equal(one.statusCode, 200, one.body);
    for (const second of [`Bearer ${key}`, `Bearer ${TEST_KEYS.operator}`, 'Basic x']) {
      const two = await sendRaw(
        relayPort,
        rawGet(RECORDS, [`Authorization: Bearer ${key}`, `authorization: ${second}`, purpose]),
      );
      assert.equal(two.statusCode, 401, two.body);
      assert.equal(problemCode(two.body), 'auth.malformed_credential');
    }
    const twoKeys = await sendRaw(
      relayPort,
      rawGet(RECORDS, [`x-api-key: ${key}`, `X-Api-Key: ${key}`, purpose]),
    );
    assert.equal(twoKeys.statusCode, 401, twoKeys.body);
    assert.equal(problemCode(twoKeys.body), 'auth.malformed_credential');
  });

  it('verifier: two Authorization or two x-api-key headers are 400 auth.multiple_credentials', async () => {
    const key = CALLER_KEYS.full;
    const one = await sendRaw(verifierPort, rawGet('/v1/claims', [`x-api-key: ${key}`]));
    assert.equal(one.statusCode, 200, one.body);
    const cases = [
      [`Authorization: Bearer ${key}`, `Authorization: Bearer ${key}`],
      [`x-api-key: ${key}`, `x-api-key: ${key}`],
    ];
    for (const headers of cases) {
      const two = await sendRaw(verifierPort, rawGet('/v1/claims', headers));
      assert.equal(two.statusCode, 400, two.body);
      assert.equal(problemCode(two.body), 'auth.multiple_credentials');
    }
    const body = JSON.stringify({ target: { type: 'person', id: 'P-1' }, claims: ['person_alive'] });
    const post = await sendRaw(
      verifierPort,
      `POST /v1/evaluations HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nData-Purpose: ${EVIDENCE_PURPOSE}\r\n` +
        `Authorization: Bearer ${key}\r\nAuthorization: Bearer ${key}\r\n\r\n${body}`,
    );
    assert.equal(post.statusCode, 400, post.body);
    assert.equal(problemCode(post.body), 'auth.multiple_credentials');
  });
});

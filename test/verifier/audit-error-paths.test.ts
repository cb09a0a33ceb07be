// The audit trail and the logs on the verifier's failure paths: a source that fails in every way (errors, refusals,
// redirects, bodies that are not records, silence, a cut connection), echoing what it was sent (the identifier in
// its query, the connection's bearer token, the caller's x-request-id), a refused bulk read (which is logged), and
// request bodies refused before any read.
// Each request still writes its one event, with a reason code, and nothing sent or echoed reaches a record or a log.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { capturedLog } from '../helpers/captured-log.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { TEST_KEYS } from '../helpers/relay-harness.ts';
import {
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
  VERIFIER_AUDIT_SECRET,
} from '../helpers/verifier-harness.ts';

/** How the source answers a lookup of each identifier, every answer echoing the request it was sent. */
const FAILURES: Record<string, (echo: string, response: ServerResponse, request: IncomingMessage) => void> = {
  ErrHttp500x1: (echo, response) => answer(response, 500, 'application/json', echo),
  ErrRefused4x2: (echo, response) =>
    answer(
      response,
      400,
      'application/problem+json',
      JSON.stringify({ code: 'filter.unknown_field', detail: echo }),
    ),
  ErrNotJson0x3: (echo, response) => answer(response, 200, 'application/json', `{"data": [${echo}`),
  ErrNotType0x4: (echo, response) =>
    answer(response, 200, `text/html; x="${encodeURIComponent(echo)}"`, echo),
  ErrRedirect5: (echo, response) => {
    response.writeHead(302, { location: `https://elsewhere.example/${encodeURIComponent(echo)}` });
    response.end();
  },
  ErrBusy429x6: (echo, response) => answer(response, 429, 'application/json', echo, { 'retry-after': '1' }),
  ErrTooLarge7: (echo, response) =>
    answer(response, 200, 'application/json', `{"data":[{"x":"${'a'.repeat(1_100_000)}${echo}"}]}`),
  ErrSilent0x8: () => {},
  ErrCutConn09: (_echo, _response, request) => request.socket.destroy(),
};
const IDS = Object.keys(FAILURES);
const CLIENT_REQUEST_ID = 'ErrCase-7741-client-request';
/** Values of the requests refused before any read: in the body, a header, a member name. */
const REFUSED = ['ErrBodyVal10', 'ErrMember011', 'ErrMediaT012', 'ErrCoding013', 'ErrUtf8Va014'];
const SECRETS = [TEST_KEYS.verifier_service, ...Object.values(CALLER_KEYS), VERIFIER_AUDIT_SECRET];

function answer(
  response: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': type, ...headers });
  response.end(body);
}

function source(request: IncomingMessage, response: ServerResponse): void {
  const echo = JSON.stringify({
    url: request.url,
    authorization: request.headers.authorization,
    request_id: request.headers['x-request-id'],
  });
  // The bulk form is refused, the refusal's code echoing the request: the verifier logs bulk refusals.
  if (request.url?.includes('.in=')) {
    answer(response, 400, 'application/problem+json', JSON.stringify({ code: echo, detail: echo }));
    return;
  }
  const id = IDS.find((candidate) => request.url?.includes(candidate));
  if (id !== undefined) (FAILURES[id] as (typeof FAILURES)[string])(echo, response, request);
  else answer(response, 500, 'application/json', echo);
}

const target = (value: string) => ({ type: 'person', identifiers: [{ scheme: 'national_id', value }] });

describe('audit trail and logs on failure paths', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  let bulk: TestVerifier;
  const log = capturedLog('trace');
  const requestIds: string[] = [];

  before(async () => {
    upstream = await startFakeUpstream(source);
    verifier = await startTestVerifier({
      relays: { civil: upstream.url },
      deps: { logger: log.logger },
      // A short attempt timeout, for the source that never answers.
      edit: (text) => text.replace('      retry:', '      timeout: 200ms\n      retry:'),
    });
    const headers = { 'x-request-id': CLIENT_REQUEST_ID };
    for (const id of IDS) {
      const response = await verifier.evaluate({ target: target(id), claims: ['person_alive'] }, { headers });
      assert.equal(response.statusCode, 503, `${id}: ${response.body}`);
      requestIds.push(String(response.headers['x-request-id']));
    }
    const batch = await verifier.post(
      '/v1/batch-evaluations',
      { items: IDS.map((id) => ({ target: target(id) })), claims: ['person_alive'] },
      { headers },
    );
    assert.equal(batch.statusCode, 200, batch.body);
    requestIds.push(String(batch.headers['x-request-id']));
    const raw = (payload: string | Buffer, extra: Record<string, string> = {}) =>
      verifier.inject({
        method: 'POST',
        url: '/v1/evaluations',
        headers: {
          'content-type': 'application/json',
          'x-api-key': CALLER_KEYS.full,
          'data-purpose': EVIDENCE_PURPOSE,
          ...extra,
        },
        payload,
      });
    const refused = [
      await raw(`{"target": ${JSON.stringify(target('ErrBodyVal10'))} ErrBodyVal10`),
      await raw(
        `{"claims": ["person_alive"], "target": ${JSON.stringify(target('ErrMember011'))}, "ErrMember011": 1}`,
      ),
      await raw('{}', { 'content-type': 'application/x-ErrMediaT012' }),
      await raw('{}', { 'content-encoding': 'ErrCoding013' }),
      await raw(Buffer.concat([Buffer.from('{"x": "ErrUtf8Va014'), Buffer.from([0xff]), Buffer.from('"}')])),
    ];
    assert.deepEqual(
      refused.map((response) => response.statusCode),
      [400, 400, 415, 415, 400],
    );
    for (const response of refused) requestIds.push(String(response.headers['x-request-id']));
    // A connection reading batches with `.in`, whose source refuses that form: its values are then read singly.
    bulk = await startTestVerifier({
      relays: { civil: upstream.url },
      bulk: true,
      deps: { logger: log.logger },
    });
    const bulkBatch = await bulk.post(
      '/v1/batch-evaluations',
      { items: IDS.slice(0, 2).map((id) => ({ target: target(id) })), claims: ['person_alive'] },
      { headers },
    );
    assert.equal(bulkBatch.statusCode, 200, bulkBatch.body);
    // Closed: every record is in the file before it is read.
    await verifier.verifier.close();
    await bulk.verifier.close();
  });
  after(async () => {
    await verifier?.close();
    await bulk?.close();
    await upstream?.close();
  });

  it('writes one event per request and per batch item, each failure with its reason', () => {
    const records = verifier.auditRecords();
    for (const id of requestIds) {
      const own = records.filter(
        (record) => record.request_id === id && record.endpoint_kind !== 'batch_item',
      );
      assert.equal(own.length, 1, `one event for request ${id}`);
    }
    const items = records.filter((record) => record.endpoint_kind === 'batch_item');
    assert.equal(items.length, IDS.length);
    assert.equal(records.length, requestIds.length + IDS.length);
    for (const record of records.filter((record) => record.status !== 200)) {
      assert.match(String(record.error_code), /^[a-z_]+\.[a-z0-9_.]+$/, JSON.stringify(record));
      assert.match(String(record.decision), /_denied$/, JSON.stringify(record));
    }
  });

  it('keeps identifiers, echoed requests, tokens and keys out of the audit file and the logs', () => {
    const audit = JSON.stringify([...verifier.auditRecords(), ...bulk.auditRecords()]).toLowerCase();
    const logs = log.lines.join('').toLowerCase();
    // The refused bulk read was logged: the logs checked below are the verifier's, and not empty.
    assert.match(logs, /source refuses bulk reads/);
    for (const value of [...IDS, ...REFUSED, CLIENT_REQUEST_ID, ...SECRETS]) {
      for (const form of [value, encodeURIComponent(value), Buffer.from(value).toString('base64')]) {
        assert.ok(!audit.includes(form.toLowerCase()), `${value} is in the audit file`);
        assert.ok(!logs.includes(form.toLowerCase()), `${value} is in the logs`);
      }
    }
  });
});

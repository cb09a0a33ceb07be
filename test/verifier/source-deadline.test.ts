// Source reads get the time their request has left: none starts after the request is answered, and the audit
// event of a request answered 504 counts the reads it actually made.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { auditOfRequest, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const target = (nationalId: string) => ({
  type: 'person',
  identifiers: [{ scheme: 'national_id', value: nationalId }],
});
type Handler = (request: IncomingMessage, response: ServerResponse) => void;

describe('source reads and the request timeout', () => {
  let upstream: FakeUpstream;
  let hits: string[];
  let handler: Handler;
  let verifier: TestVerifier;

  before(async () => {
    upstream = await startFakeUpstream((request, response) => {
      hits.push(String(request.headers['x-request-id']));
      handler(request, response);
    });
    const url = upstream.url;
    verifier = await startTestVerifier({
      relays: { civil: url },
      // One second per request (room for a loaded machine to send the first read), one read at a time.
      edit: (text) =>
        text
          .replace('  bind: 127.0.0.1:0\n', '  bind: 127.0.0.1:0\n  request_timeout: 1s\n')
          .replace(
            '      allow_insecure_localhost: true\n',
            '      allow_insecure_localhost: true\n      max_in_flight: 1\n',
          ),
    });
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });
  beforeEach(() => {
    hits = [];
  });

  const auditOf = (clientRequestId: string) => auditOfRequest(verifier, clientRequestId);

  it('answers 504 when a slow source outlasts the request, auditing the reads actually made', async () => {
    // The relay answers after 2.5 s, long after both requests were answered.
    handler = (_request, response) => {
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ data: [{ deceased: false }] }));
      }, 2_500).unref();
    };
    const answers = await Promise.all(
      ['first', 'second'].map((id) =>
        verifier.evaluate(
          { target: target(`FAKE-${id}`), claims: ['person_alive'] },
          { headers: { 'x-request-id': id } },
        ),
      ),
    );
    for (const answer of answers) assertProblem(answer, 504, 'internal.timeout');
    // Past the relay's answer: a read still waiting for the connection's slot would have been sent by now.
    await new Promise((resolve) => setTimeout(resolve, 2_700));
    assert.equal(hits.filter((id) => id === 'first').length, 1);
    assert.ok(hits.length <= 2, String(hits));
    for (const id of ['first', 'second']) {
      const record = auditOf(id);
      assert.equal(record?.status, 504);
      // Every read the relay saw is audited. On a loaded machine the second request may start a moment after the
      // first and get the slot with a few milliseconds left: its read is then sent (and audited) but cut off before
      // the relay reads it, so the audit may count one read more than the relay saw, never fewer, and at most one.
      const seen = hits.filter((hit) => hit === id).length;
      const audited = Number(record?.source_read_count);
      assert.ok(
        audited >= seen && audited <= 1,
        `${id}: audited ${audited} reads against relay hits ${hits}`,
      );
    }
    assert.equal(auditOf('first')?.source_read_count, 1);
  });

  it('gives up at once when the pause the source asks for outlasts the request', async () => {
    handler = (_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      response.end('{}');
    };
    const answer = await verifier.evaluate(
      { target: target('FAKE-busy'), claims: ['person_alive'] },
      { headers: { 'x-request-id': 'busy' } },
    );
    assertProblem(answer, 503, 'source.unavailable');
    assert.equal(answer.headers['retry-after'], '1');
    assert.deepEqual(hits, ['busy']);
    assert.equal(auditOf('busy')?.source_read_count, 1);
  });
});

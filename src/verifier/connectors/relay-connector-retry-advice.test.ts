// What a 503 source.unavailable tells its caller to do: retry later only when a retry can pass. A read refused for
// a lasting reason (the batch's `retryable: false`) fails again however often it is sent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditCodeOf } from './failure-reason.ts';
import { failure, json, LOOKUP, useConnectorUpstream } from './relay-connector-fixture.ts';

describe('registry_data_api connector: the advice a source.unavailable detail gives', () => {
  const upstream = useConnectorUpstream();

  it('does not tell the caller to retry a read that would fail again', async () => {
    const reader = upstream.connector();
    upstream.handler = (_request, response) => json(response, 400, { code: 'filter.not_allowed' });
    const refused = await failure(reader.read(LOOKUP));
    upstream.handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html></html>');
    };
    const invalid = await failure(reader.read(LOOKUP));
    const unconfigured = await failure(
      reader.read({ ...LOOKUP, binding: { ...LOOKUP.binding, connection: 'other' } }),
    );
    reader.close();
    for (const [problem, reason] of [
      [refused, 'source.request_refused'],
      [invalid, 'source.invalid_response'],
      [unconfigured, 'source.not_configured'],
    ] as const) {
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', reason],
      );
      assert.equal(problem.detail, 'A source cannot answer this read; a retry would fail again.');
      assert.equal(problem.extras.retryable, false, reason);
    }
  });

  it('tells the caller to retry later when the source stayed unavailable', async () => {
    const reader = upstream.connector();
    upstream.handler = (_request, response) => json(response, 503, { code: 'x' });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(auditCodeOf(problem), 'source.http_503');
    assert.equal(problem.detail, 'A source is unavailable; retry later.');
    assert.equal(problem.extras.retryable, true);
  });
});

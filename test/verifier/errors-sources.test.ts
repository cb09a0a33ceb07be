// The verifier error table (verifier contract §2.12), what sources make of an evaluation: no record, refusals,
// unavailable sources and failed rules; and a verifier without relays or purpose rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem, listenLocal, rawRequest } from '../helpers/http-checks.ts';
import { CALLER_KEYS, EVIDENCE_PURPOSE, startTestVerifier } from '../helpers/verifier-harness.ts';

import { ALIVE, json, useErrorTable } from './error-table-fixture.ts';

describe('verifier error table: source outcomes', () => {
  const table = useErrorTable();

  it('409 evidence.not_available for none and for several records', async () => {
    for (const data of [[], [{ deceased: false }, { deceased: true }]]) {
      table.handler = (_request, response) => json(response, 200, { data });
      const response = await table.verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
      const problem = assertProblem(response, 409, 'evidence.not_available');
      const record = table.verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
      assert.equal(record?.error_code, data.length === 0 ? 'target.not_found' : 'target.match_ambiguous');
    }
  });

  it('409 evidence.not_available, not retried, when the source refuses the lookup value (400)', async () => {
    table.handler = (_request, response) => json(response, 400, { code: 'filter.invalid_value' });
    const response = await table.verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 409, 'evidence.not_available');
    assert.equal(table.requests.length, 1);
    assert.deepEqual(table.sleeps, []);
    const record = table.verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.http_400');
    // In a batch, the item fails as evaluating it alone would, and is not worth retrying as it is.
    const batch = await table.verifier.post('/v1/batch-evaluations', {
      items: [{ target: ALIVE }],
      claims: ['person_alive'],
    });
    assert.equal(batch.statusCode, 200, batch.body);
    assert.deepEqual(JSON.parse(batch.body).items[0].errors, [
      {
        code: 'evidence.not_available',
        title: 'Evidence not available',
        retryable: false,
        claim_id: 'person_alive',
      },
    ]);
  });

  it('503 source.unavailable, not retried, when the source refuses the request for another reason (400)', async () => {
    // A binding that drifted from the relay's schema says nothing about the person: not 409 "no record".
    table.handler = (_request, response) => json(response, 400, { code: 'filter.unknown_field' });
    const response = await table.verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 503, 'source.unavailable');
    // The answer says so where a client can branch on it, not only in its detail.
    assert.equal(problem.retryable, false);
    assert.equal(table.requests.length, 1);
    assert.deepEqual(table.sleeps, []);
    const record = table.verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.request_refused');
  });

  it('503 source.unavailable, single or in a batch, when a record nests absurdly deep', async () => {
    table.handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"data":[{"deceased":${'['.repeat(5000)}${']'.repeat(5000)}}]}`);
    };
    const response = await table.verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 503, 'source.unavailable');
    const record = table.verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.invalid_response');
    const batch = await table.verifier.post('/v1/batch-evaluations', {
      items: [{ target: ALIVE }],
      claims: ['person_alive'],
    });
    assert.equal(batch.statusCode, 200, batch.body);
    assert.equal(JSON.parse(batch.body).items[0].errors[0].code, 'source.unavailable');
  });

  it('never satisfied: false from a record with more announced, or a record for another subject', async () => {
    // Each answer holds one record of a deceased person: read as the subject's own, it made `satisfied: false`.
    const dead = (nationalId: string) => ({ national_id: nationalId, deceased: true });
    for (const [body, status, code, reason] of [
      [
        { data: [dead('FAKE-1')], pagination: { has_more: true } },
        409,
        'evidence.not_available',
        'target.match_ambiguous',
      ],
      [{ data: [dead('FAKE-2')] }, 503, 'source.unavailable', 'source.invalid_response'],
    ] as const) {
      table.handler = (_request, response) => json(response, 200, body);
      const problem = assertProblem(
        await table.verifier.evaluate({ target: ALIVE, claims: ['person_alive'] }),
        status,
        code,
      );
      const record = table.verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
      assert.equal(record?.error_code, reason);
      const batch = await table.verifier.post('/v1/batch-evaluations', {
        items: [{ target: ALIVE }],
        claims: ['person_alive'],
      });
      assert.equal(batch.statusCode, 200, batch.body);
      assert.equal(JSON.parse(batch.body).items[0].errors[0].code, code);
    }
  });

  it('503 source.unavailable after retries honouring Retry-After; the reason only in audit', async () => {
    table.handler = (_request, response) => json(response, 503, {}, { 'retry-after': '2' });
    const response = await table.verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 503, 'source.unavailable');
    assert.equal(problem.retryable, true);
    assert.equal(table.requests.length, 3);
    assert.deepEqual(table.sleeps, [2000, 2000]);
    assert.equal(response.headers['retry-after'], '2');
    const record = table.verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.http_503');

    table.requests.length = 0;
    let calls = 0;
    table.handler = (_request, response) => {
      calls++;
      if (calls < 3) json(response, 429, {});
      else json(response, 200, { data: [{ deceased: false }] });
    };
    const recovered = await table.verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    assert.equal(recovered.statusCode, 200, recovered.body);
    assert.equal(table.requests.length, 3);
  });

  it('503 source.unavailable for a claim whose source is not configured (the service still started)', async () => {
    const response = await table.verifier.evaluate({ target: ALIVE, claims: ['ledger_entry'] });
    const problem = assertProblem(response, 503, 'source.unavailable');
    assert.equal(problem.retryable, false);
    assert.equal(table.requests.length, 0);
    const record = table.verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.not_configured');
    // Nothing changes it short of a new configuration: a batch item says trying again will not help.
    const batch = await table.verifier.post('/v1/batch-evaluations', {
      items: [{ target: ALIVE }],
      claims: ['ledger_entry'],
    });
    const [item] = JSON.parse(batch.body).items;
    assert.deepEqual(item.errors, [
      { code: 'source.unavailable', title: item.errors[0].title, retryable: false, claim_id: 'ledger_entry' },
    ]);
  });

  it('several claims succeed together or not at all: the first failing claim in request order answers', async () => {
    // Households are not found (409); ledger_entry has no source (503, at once, before the household read ends).
    table.handler = (request, response) =>
      json(response, 200, { data: request.url?.includes('/households/') ? [] : [{ deceased: false }] });
    for (const [claims, status, code] of [
      [['person_alive', 'household_enrolled'], 409, 'evidence.not_available'],
      [['household_enrolled', 'ledger_entry'], 409, 'evidence.not_available'],
      [['ledger_entry', 'household_enrolled'], 503, 'source.unavailable'],
    ] as const) {
      assertProblem(await table.verifier.evaluate({ target: ALIVE, claims }), status, code);
      const batch = await table.verifier.post('/v1/batch-evaluations', {
        items: [{ target: ALIVE }],
        claims,
      });
      assert.equal(batch.statusCode, 200, batch.body);
      const [item] = JSON.parse(batch.body).items;
      assert.equal(item.status, 'failed');
      assert.deepEqual(item.claim_results, []);
      assert.deepEqual(
        item.errors.map((error: { code: string }) => error.code),
        [code],
        claims.join(),
      );
    }
  });

  it('never a result from an answer that says two things: a key twice, has_more as text, a coded body', async () => {
    // Each was read as one deceased record of the subject: `satisfied: false` (or an item's `false`).
    const answers: [string, Record<string, string>][] = [
      ['{"data":[{"national_id":"FAKE-1","deceased":false,"deceased":true}]}', {}],
      ['{"data":[{"national_id":"FAKE-1","deceased":true}],"pagination":{"has_more":"true"}}', {}],
      ['{"data":[{"national_id":"FAKE-1","deceased":true}]}', { 'content-encoding': 'br' }],
    ];
    for (const [body, headers] of answers) {
      table.handler = (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', ...headers });
        response.end(body);
      };
      const problem = assertProblem(
        await table.verifier.evaluate({ target: ALIVE, claims: ['person_alive'] }),
        503,
        'source.unavailable',
      );
      assert.equal(problem.retryable, false, body);
      const record = table.verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
      assert.equal(record?.error_code, 'source.invalid_response', body);
      const batch = await table.verifier.post('/v1/batch-evaluations', {
        items: [{ target: ALIVE }],
        claims: ['person_alive'],
      });
      assert.equal(batch.statusCode, 200, batch.body);
      assert.equal(JSON.parse(batch.body).items[0].errors[0].code, 'source.unavailable', body);
    }
  });

  it('500 claim.rule_evaluation_failed when the source lacks a field, with a generic detail', async () => {
    table.handler = (_request, response) => json(response, 200, { data: [{ other: 'x' }] });
    const response = await table.verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 500, 'claim.rule_evaluation_failed');
    assert.equal(problem.detail, 'The claim rule could not be evaluated.');
    const record = table.verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'cel.error');
  });
});

describe('verifier without any relay configured', () => {
  it('starts, serves discovery, and answers source.unavailable at evaluation time', async () => {
    const verifier = await startTestVerifier();
    try {
      const ready = await verifier.get('/ready');
      assert.equal(ready.statusCode, 200);
      const response = await verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
      const problem = assertProblem(response, 503, 'source.unavailable');
      const record = verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
      assert.equal(record?.error_code, 'source.not_configured');
    } finally {
      await verifier.close();
    }
  });
});

describe('verifier accepting any purpose (no allowed_purposes)', () => {
  it('400 request.invalid for a purpose a header cannot carry, in the header, the body or an item, before any read', async () => {
    let reads = 0;
    const upstream = await startFakeUpstream((_request, response) => {
      reads += 1;
      json(response, 200, { data: [{ deceased: false }] });
    });
    const url = upstream.url;
    const verifier = await startTestVerifier({
      relays: { civil: url, social: url },
      edit: (text) => text.replace(/ {2}allowed_purposes:\n( {4}- .*\n)+/, ''),
    });
    try {
      const body = { target: ALIVE, claims: ['person_alive'] };
      const noHeader = { headers: { 'data-purpose': '' } };
      for (const purpose of ['a\nb', 'p\u0000', 'p🙂', 'pé', ' padded ', 'x'.repeat(513)]) {
        const response = await verifier.evaluate({ ...body, purpose }, noHeader);
        assertProblem(response, 400, 'request.invalid');
        const batch = await verifier.post(
          '/v1/batch-evaluations',
          { items: [{ target: ALIVE, purpose }], claims: ['person_alive'] },
          noHeader,
        );
        assertProblem(batch, 400, 'request.invalid');
      }
      for (const header of ['a\tb', 'p🙂', 'x'.repeat(513)]) {
        const response = await verifier.evaluate(body, { headers: { 'data-purpose': header } });
        assertProblem(response, 400, 'request.invalid');
      }
      assert.equal(reads, 0, 'no source read happens');
      const spaced = await verifier.evaluate({ ...body, purpose: 'benefit review 2026' }, noHeader);
      assert.equal(spaced.statusCode, 200, spaced.body);
      const longest = await verifier.evaluate({ ...body, purpose: 'x'.repeat(512) }, noHeader);
      assert.equal(longest.statusCode, 200, longest.body);
      assert.equal(reads, 2);
      // Two Data-Purpose headers are not one purpose "a, b" (Node joins them so): refused, whatever their values.
      const port = await listenLocal(verifier.verifier.app);
      const purposes = [EVIDENCE_PURPOSE, 'https://elsewhere.example/p'];
      for (const path of ['/v1/evaluations', '/v1/batch-evaluations']) {
        const repeated = await rawRequest(port, path, {
          method: 'POST',
          headers: {
            'x-api-key': CALLER_KEYS.full,
            'content-type': 'application/json',
            'data-purpose': purposes,
          },
          body: JSON.stringify(
            path === '/v1/evaluations' ? body : { items: [{ target: ALIVE }], claims: ['person_alive'] },
          ),
        });
        assertProblem(repeated, 400, 'request.invalid');
      }
      assert.equal(reads, 2, 'no source read happens');
      // One header whose value holds a comma is one purpose.
      const comma = await rawRequest(port, '/v1/evaluations', {
        method: 'POST',
        headers: {
          'x-api-key': CALLER_KEYS.full,
          'content-type': 'application/json',
          'data-purpose': 'review, 2026',
        },
        body: JSON.stringify(body),
      });
      assert.equal(comma.statusCode, 200, comma.body);
    } finally {
      await verifier.close();
      await upstream.close();
    }
  });
});

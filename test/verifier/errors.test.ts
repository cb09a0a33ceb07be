// The verifier error table (verifier contract §2.12) for the codes implemented, against a fake upstream that
// counts every request: denials happen before any source read.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem, listenLocal, rawRequest } from '../helpers/http-checks.ts';
import { injectThroughLane } from '../helpers/inject-through-lane.ts';
import {
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';

const ALIVE = {
  type: 'person',
  identifiers: [
    { scheme: 'national_id', value: 'FAKE-1' },
    { scheme: 'person_id', value: 'per-1' },
  ],
};
type Handler = (request: IncomingMessage, response: ServerResponse) => void;

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

describe('verifier error table', () => {
  let upstream: FakeUpstream;
  let requests: IncomingMessage[];
  let handler: Handler;
  let verifier: TestVerifier;
  const sleeps: number[] = [];

  before(async () => {
    upstream = await startFakeUpstream((request, response) => {
      requests.push(request);
      handler(request, response);
    });
    const url = upstream.url;
    verifier = await startTestVerifier({
      relays: { civil: url, social: url },
      deps: {
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      },
    });
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });
  beforeEach(() => {
    requests = [];
    sleeps.length = 0;
    handler = (_request, response) => json(response, 200, { data: [{ deceased: false }] });
  });

  /** Asserts the problem and that the upstream saw no request at all. */
  async function deniedBeforeReads(
    body: unknown,
    status: number,
    code: string,
    options: Parameters<TestVerifier['evaluate']>[1] = {},
  ) {
    const response = await verifier.evaluate(body, options);
    const problem = assertProblem(response, status, code);
    assert.equal(requests.length, 0, `${code}: no source read happens`);
    return problem;
  }

  it('malformed bodies: the fast lane and Fastify answer each alike, before any read', async () => {
    const valid = JSON.stringify({ target: ALIVE, claims: ['person_alive'] });
    const cases: { name: string; body: string | Buffer; type?: string; status: number; code?: string }[] = [
      { name: 'truncated JSON', body: '{"target":', status: 400, code: 'http.invalid_body' },
      { name: '__proto__ key', body: '{"__proto__":{"admin":true}}', status: 400, code: 'http.invalid_body' },
      {
        name: 'constructor.prototype',
        body: '{"constructor":{"prototype":{"admin":true}}}',
        status: 400,
        code: 'http.invalid_body',
      },
      { name: 'empty body', body: '', status: 400, code: 'http.invalid_body' },
      // The last of two members wins in JSON.parse; a proxy or a log reader may read the first.
      {
        name: 'a member named twice',
        body: `${valid.slice(0, -1)},"disclosure":"redacted","disclosure":"value"}`,
        status: 400,
        code: 'http.invalid_body',
      },
      {
        name: 'a member named twice, once escaped',
        body: valid.replace('"target":', '"target":{"type":"x"},"t\\u0061rget":'),
        status: 400,
        code: 'http.invalid_body',
      },
      // A body not sent as JSON is 415, as the OpenAPI document and the relay say, text/plain included.
      {
        name: 'text/plain',
        body: valid,
        type: 'text/plain',
        status: 415,
        code: 'http.unsupported_media_type',
      },
      {
        name: 'XML',
        body: '<a/>',
        type: 'application/xml',
        status: 415,
        code: 'http.unsupported_media_type',
      },
      { name: 'over the 1 MiB limit', body: `{"x":"${'a'.repeat(1024 * 1024)}"}`, status: 413 },
      { name: 'a JSON array', body: '[1,2]', status: 400, code: 'request.invalid' },
      {
        name: 'invalid UTF-8 inside a string',
        body: Buffer.concat([
          Buffer.from('{"target":{"type":"'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from('"}}'),
        ]),
        status: 400,
        code: 'request.invalid',
      },
      { name: 'charset=utf-8', body: valid, type: 'application/json; charset=utf-8', status: 200 },
    ];
    for (const { name, body, type = 'application/json', status, code } of cases) {
      const options = {
        method: 'POST' as const,
        url: '/v1/evaluations',
        headers: { 'content-type': type, 'x-api-key': CALLER_KEYS.full, 'data-purpose': EVIDENCE_PURPOSE },
        payload: body,
      };
      const lane = await injectThroughLane(verifier.verifier.app, options);
      const fastify = await verifier.verifier.app.inject(options);
      assert.equal(lane.statusCode, status, `${name}: ${lane.body}`);
      assert.equal(fastify.statusCode, status, `${name} (Fastify): ${fastify.body}`);
      if (code === undefined) continue;
      for (const response of [lane, fastify]) assertProblem(response, status, code);
      const detail = (response: typeof lane) => JSON.parse(response.body).detail;
      assert.equal(detail(lane), detail(fastify), `${name}: the same detail on both paths`);
    }
    assert.equal(requests.length, 2, 'only the two valid evaluations read their source');
  });

  it('400 http.invalid_body for a member named twice in a batch or a render body, before any read', async () => {
    const headers = {
      'content-type': 'application/json',
      'x-api-key': CALLER_KEYS.full,
      'data-purpose': EVIDENCE_PURPOSE,
    };
    const batch = await verifier.inject({
      method: 'POST',
      url: '/v1/batch-evaluations',
      headers,
      payload: `{"items":[{"target":${JSON.stringify(ALIVE)}}],"claims":["person_alive"],"disclosure":"predicate","disclosure":"value"}`,
    });
    assert.match(String(assertProblem(batch, 400, 'http.invalid_body').detail), /named twice|twice/);
    const render = await verifier.inject({
      method: 'POST',
      url: '/v1/evaluations/01JZ0000000000000000000000/render',
      headers,
      payload: '{"disclosure":"redacted","disclosure":"value"}',
    });
    assertProblem(render, 400, 'http.invalid_body');
    // A name repeated in different objects, or as a value, is no duplicate.
    const fine = await verifier.inject({
      method: 'POST',
      url: '/v1/batch-evaluations',
      headers,
      payload: JSON.stringify({ items: [{ target: ALIVE }, { target: ALIVE }], claims: ['person_alive'] }),
    });
    assert.equal(fine.statusCode, 200, fine.body);
    assert.equal(requests.length, 1);
  });

  it('414 request.uri_too_long, as the verifier contract names it, for a long URI or path segment', async () => {
    for (const path of [`/v1/claims/${'a'.repeat(9000)}`, `/v1/claims?pad=${'a'.repeat(9000)}`]) {
      const response = await verifier.get(path);
      assertProblem(response, 414, 'request.uri_too_long');
    }
  });

  it('401 auth.missing_credential for an absent, malformed or unknown credential; 400 auth.multiple_credentials', async () => {
    await deniedBeforeReads({ target: ALIVE, claims: ['person_alive'] }, 401, 'auth.missing_credential', {
      as: 'full',
      headers: { 'x-api-key': '' },
    });
    // No distinction between absent and wrong (verifier contract §2.1): which keys exist is not told.
    await deniedBeforeReads({ target: ALIVE, claims: ['person_alive'] }, 401, 'auth.missing_credential', {
      headers: { 'x-api-key': 'not-a-key' },
    });
    // The audit keeps the precise reason.
    assert.equal(verifier.auditRecords().at(-1)?.error_code, 'auth.invalid_credential');
    await deniedBeforeReads({ target: ALIVE, claims: ['person_alive'] }, 401, 'auth.missing_credential', {
      as: 'full',
      headers: { 'x-api-key': '', authorization: 'Token abc' },
    });
    assert.equal(verifier.auditRecords().at(-1)?.error_code, 'auth.malformed_credential');
    await deniedBeforeReads({ target: ALIVE, claims: ['person_alive'] }, 400, 'auth.multiple_credentials', {
      headers: { authorization: `Bearer ${CALLER_KEYS.full}` },
    });
  });

  it('accepts a bearer token only in Authorization, and an API key in either header', async () => {
    const asBearer = await verifier.evaluate(
      { target: ALIVE, claims: ['person_alive'] },
      { as: 'bearer_only' },
    );
    assert.equal(asBearer.statusCode, 200, asBearer.body);
    const bearerInApiKey = await verifier.evaluate(
      { target: ALIVE, claims: ['person_alive'] },
      { headers: { 'x-api-key': CALLER_KEYS.bearer_only } },
    );
    assertProblem(bearerInApiKey, 401, 'auth.missing_credential');
    const keyAsBearer = await verifier.evaluate(
      { target: ALIVE, claims: ['person_alive'] },
      { as: 'full', headers: { 'x-api-key': '', authorization: `Bearer ${CALLER_KEYS.full}` } },
    );
    assert.equal(keyAsBearer.statusCode, 200, keyAsBearer.body);
  });

  it('403 auth.scope_denied for a claim (or a sub-claim) the caller lacks a scope for, before any read', async () => {
    await deniedBeforeReads({ target: ALIVE, claims: ['person_alive'] }, 403, 'auth.scope_denied', {
      as: 'no_scopes',
    });
    // eligible needs social:evidence through its household_enrolled sub-claim.
    await deniedBeforeReads({ target: ALIVE, claims: ['eligible'] }, 403, 'auth.scope_denied', {
      as: 'civil_only',
    });
    await deniedBeforeReads(
      { target: ALIVE, claims: ['person_alive', 'eligible'] },
      403,
      'auth.scope_denied',
      {
        as: 'civil_only',
      },
    );
  });

  it('403 the same whatever version a caller without the scopes names, single or batch', async () => {
    const answers = new Set<string>();
    for (const ref of [
      'household_enrolled',
      { id: 'household_enrolled', version: '1' },
      { id: 'household_enrolled', version: '9' },
    ]) {
      const single = await deniedBeforeReads({ target: ALIVE, claims: [ref] }, 403, 'auth.scope_denied', {
        as: 'civil_only',
      });
      const batch = await verifier.post(
        '/v1/batch-evaluations',
        { items: [{ target: ALIVE }], claims: [ref] },
        { as: 'civil_only' },
      );
      answers.add(`${single.detail}`).add(`${assertProblem(batch, 403, 'auth.scope_denied').detail}`);
    }
    assert.equal(answers.size, 1, [...answers].join(' / '));
    assert.equal(requests.length, 0);
    // A caller holding the scopes is told the version does not exist.
    for (const path of ['/v1/evaluations', '/v1/batch-evaluations']) {
      const body = { claims: [{ id: 'household_enrolled', version: '9' }] };
      const response = await verifier.post(
        path,
        path === '/v1/evaluations' ? { target: ALIVE, ...body } : { items: [{ target: ALIVE }], ...body },
      );
      assertProblem(response, 404, 'claim.version_not_found');
    }
  });

  it('404 claim.not_found with a hint, and claim.version_not_found', async () => {
    const problem = await deniedBeforeReads(
      { target: ALIVE, claims: ['person_alvie'] },
      404,
      'claim.not_found',
    );
    assert.match(String(problem.detail), /did you mean `person_alive`/);
    await deniedBeforeReads(
      { target: ALIVE, claims: [{ id: 'birth_date', version: '1' }] },
      404,
      'claim.version_not_found',
    );
  });

  it('400 request.invalid for malformed bodies, repeated schemes and an Idempotency-Key', async () => {
    for (const body of [
      { target: ALIVE },
      { target: ALIVE, claims: [] },
      { target: ALIVE, claims: ['person_alive'], extra: true },
      { target: ALIVE, claims: ['person_alive'], disclosure: 'everything' },
      {
        target: {
          ...ALIVE,
          identifiers: [
            { scheme: 'national_id', value: 'a' },
            { scheme: 'national_id', value: 'b' },
          ],
        },
        claims: ['person_alive'],
      },
    ]) {
      await deniedBeforeReads(body, 400, 'request.invalid');
    }
    await deniedBeforeReads({ target: ALIVE, claims: ['person_alive'] }, 400, 'request.invalid', {
      headers: { 'idempotency-key': 'k1' },
    });
  });

  it('400 request.invalid for a whole-number attribute past 2^53 - 1, which JSON parsing has rounded', async () => {
    // 12345678901234567 parses as 12345678901234568: looked up or keyed so, it would name another subject.
    for (const number of ['12345678901234567', '9007199254740993', '-9007199254740993', '1e21']) {
      const target = `{"type":"person","identifiers":[{"scheme":"national_id","value":"FAKE-1"}],"attributes":{"n":${number}}}`;
      const options = {
        method: 'POST' as const,
        url: '/v1/evaluations',
        headers: {
          'content-type': 'application/json',
          'x-api-key': CALLER_KEYS.full,
          'data-purpose': EVIDENCE_PURPOSE,
        },
        payload: `{"target":${target},"claims":["person_alive"]}`,
      };
      const problem = assertProblem(await verifier.inject(options), 400, 'request.invalid');
      assert.match(String(problem.detail), /`target\.attributes\.n`: .*2\^53/, number);
      const batch = await verifier.inject({
        ...options,
        url: '/v1/batch-evaluations',
        payload: `{"items":[{"target":${target}}],"claims":["person_alive"]}`,
      });
      assertProblem(batch, 400, 'request.invalid');
    }
    assert.equal(requests.length, 0);
    // Safe integers and fractions are numbers like any other.
    for (const n of [9007199254740991, -9007199254740991, 0.1]) {
      const response = await verifier.evaluate({
        target: { ...ALIVE, attributes: { n } },
        claims: ['person_alive'],
      });
      assert.equal(response.statusCode, 200, response.body);
    }
  });

  it('400 target.attributes_insufficient and target.identifier_missing', async () => {
    await deniedBeforeReads(
      { target: { type: 'person' }, claims: ['person_alive'] },
      400,
      'target.attributes_insufficient',
    );
    const problem = await deniedBeforeReads(
      {
        target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] },
        claims: ['eligible'],
      },
      400,
      'target.identifier_missing',
    );
    assert.match(String(problem.detail), /target\.identifiers\.person_id/);
    // A blank lookup value is as good as none: no record is keyed by it, and a relay refuses it.
    for (const value of ['   ', '\t\n']) {
      await deniedBeforeReads(
        {
          target: { type: 'person', identifiers: [{ scheme: 'national_id', value }] },
          claims: ['person_alive'],
        },
        400,
        'target.identifier_missing',
      );
    }
  });

  it('purpose rules: header or body, both must agree, one is required, allowed_purposes and claim purpose', async () => {
    const body = { target: ALIVE, claims: ['person_alive'] };
    await deniedBeforeReads(body, 400, 'auth.purpose_required', { headers: { 'data-purpose': '' } });
    await deniedBeforeReads(
      { ...body, purpose: 'https://demo.example.gov/purpose/audit' },
      400,
      'request.invalid',
    );
    await deniedBeforeReads(body, 403, 'purpose.not_allowed', {
      headers: { 'data-purpose': 'https://elsewhere.example/p' },
    });
    await deniedBeforeReads({ target: ALIVE, claims: ['audit_only'] }, 403, 'purpose.not_allowed');
    const inBody = await verifier.evaluate(
      { ...body, purpose: 'https://demo.example.gov/purpose/audit' },
      { headers: { 'data-purpose': '' } },
    );
    assert.equal(inBody.statusCode, 200, inBody.body);
    assert.equal(requests[0]?.headers['data-purpose'], 'https://demo.example.gov/purpose/audit');
    const audit = await verifier.evaluate(
      { target: ALIVE, claims: ['audit_only'] },
      { headers: { 'data-purpose': 'https://demo.example.gov/purpose/audit' } },
    );
    assert.equal(audit.statusCode, 200, audit.body);
  });

  it('406 claim.format_not_supported: unknown Accept, body format refused by Accept, claim without the format', async () => {
    const body = { target: ALIVE, claims: ['person_alive'] };
    for (const accept of ['application/json', 'text/html', 'application/ld+json']) {
      await deniedBeforeReads(body, 406, 'claim.format_not_supported', { headers: { accept } });
    }
    await deniedBeforeReads(
      { ...body, format: 'application/ld+json; profile="cccev"' },
      406,
      'claim.format_not_supported',
      {
        headers: { accept: 'application/vnd.ambit.claim-result+json' },
      },
    );
    await deniedBeforeReads({ target: ALIVE, claims: ['birth_date'] }, 406, 'claim.format_not_supported', {
      headers: { accept: 'application/ld+json; profile=cccev' },
    });
  });

  it('403 claim.disclosure_not_allowed when the claim denies the level; downgrades otherwise', async () => {
    await deniedBeforeReads(
      { target: ALIVE, claims: ['eligible'], disclosure: 'value' },
      403,
      'claim.disclosure_not_allowed',
    );
    handler = (_request, response) => json(response, 200, { data: [{ birth_date: '1990-01-02' }] });
    // birth_date downgrades to its default (redacted) when predicate is asked for.
    const response = await verifier.evaluate({
      target: ALIVE,
      claims: ['birth_date'],
      disclosure: 'predicate',
    });
    assert.equal(response.statusCode, 200, response.body);
    const [result] = JSON.parse(response.body).results;
    assert.deepEqual([result.disclosure, result.value, result.satisfied], ['redacted', null, null]);
    assert.ok(!response.body.includes('1990-01-02'));
  });

  it('501 claim.operation_unsupported for plugin rules (directly or as a sub-claim) and disabled operations', async () => {
    for (const claim of ['plugin_check', 'depends_on_plugin', 'batch_only']) {
      await deniedBeforeReads({ target: ALIVE, claims: [claim] }, 501, 'claim.operation_unsupported');
    }
  });

  it('409 evidence.not_available for none and for several records', async () => {
    for (const data of [[], [{ deceased: false }, { deceased: true }]]) {
      handler = (_request, response) => json(response, 200, { data });
      const response = await verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
      const problem = assertProblem(response, 409, 'evidence.not_available');
      const record = verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
      assert.equal(record?.error_code, data.length === 0 ? 'target.not_found' : 'target.match_ambiguous');
    }
  });

  it('409 evidence.not_available, not retried, when the source refuses the lookup value (400)', async () => {
    handler = (_request, response) => json(response, 400, { code: 'filter.invalid_value' });
    const response = await verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 409, 'evidence.not_available');
    assert.equal(requests.length, 1);
    assert.deepEqual(sleeps, []);
    const record = verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.http_400');
    // In a batch, the item fails as evaluating it alone would, and is not worth retrying as it is.
    const batch = await verifier.post('/v1/batch-evaluations', {
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
    handler = (_request, response) => json(response, 400, { code: 'filter.unknown_field' });
    const response = await verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 503, 'source.unavailable');
    assert.equal(requests.length, 1);
    assert.deepEqual(sleeps, []);
    const record = verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.request_refused');
  });

  it('503 source.unavailable, single or in a batch, when a record nests absurdly deep', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"data":[{"deceased":${'['.repeat(5000)}${']'.repeat(5000)}}]}`);
    };
    const response = await verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 503, 'source.unavailable');
    const record = verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.invalid_response');
    const batch = await verifier.post('/v1/batch-evaluations', {
      items: [{ target: ALIVE }],
      claims: ['person_alive'],
    });
    assert.equal(batch.statusCode, 200, batch.body);
    assert.equal(JSON.parse(batch.body).items[0].errors[0].code, 'source.unavailable');
  });

  it('503 source.unavailable after retries honouring Retry-After; the reason only in audit', async () => {
    handler = (_request, response) => json(response, 503, {}, { 'retry-after': '2' });
    const response = await verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 503, 'source.unavailable');
    assert.equal(requests.length, 3);
    assert.deepEqual(sleeps, [2000, 2000]);
    assert.equal(response.headers['retry-after'], '2');
    const record = verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.http_503');

    requests = [];
    let calls = 0;
    handler = (_request, response) => {
      calls++;
      if (calls < 3) json(response, 429, {});
      else json(response, 200, { data: [{ deceased: false }] });
    };
    const recovered = await verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    assert.equal(recovered.statusCode, 200, recovered.body);
    assert.equal(requests.length, 3);
  });

  it('503 source.unavailable for a claim whose source is not configured (the service still started)', async () => {
    const response = await verifier.evaluate({ target: ALIVE, claims: ['ledger_entry'] });
    const problem = assertProblem(response, 503, 'source.unavailable');
    assert.equal(requests.length, 0);
    const record = verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
    assert.equal(record?.error_code, 'source.not_configured');
  });

  it('several claims succeed together or not at all: the first failing claim in request order answers', async () => {
    // Households are not found (409); ledger_entry has no source (503, at once, before the household read ends).
    handler = (request, response) =>
      json(response, 200, { data: request.url?.includes('/households/') ? [] : [{ deceased: false }] });
    for (const [claims, status, code] of [
      [['person_alive', 'household_enrolled'], 409, 'evidence.not_available'],
      [['household_enrolled', 'ledger_entry'], 409, 'evidence.not_available'],
      [['ledger_entry', 'household_enrolled'], 503, 'source.unavailable'],
    ] as const) {
      assertProblem(await verifier.evaluate({ target: ALIVE, claims }), status, code);
      const batch = await verifier.post('/v1/batch-evaluations', { items: [{ target: ALIVE }], claims });
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

  it('500 claim.rule_evaluation_failed when the source lacks a field, with a generic detail', async () => {
    handler = (_request, response) => json(response, 200, { data: [{ other: 'x' }] });
    const response = await verifier.evaluate({ target: ALIVE, claims: ['person_alive'] });
    const problem = assertProblem(response, 500, 'claim.rule_evaluation_failed');
    assert.equal(problem.detail, 'The claim rule could not be evaluated.');
    const record = verifier.auditRecords().find((entry) => entry.request_id === problem.request_id);
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

// Verifier answers over two real demo relays, successes and refusals of every public route (discovery, claims,
// formats, evaluations in both media types, batches, render), each checked against the operation the verifier's own
// /openapi.json gives for it: status, media type, headers and body schema.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { type ConformanceChecker, conformanceChecker } from '../helpers/openapi-conformance.ts';
import { CALLER_KEYS, type Caller, CCCEV, CLAIM_RESULT } from '../helpers/verifier-harness.ts';
import type { Row } from '../relay/read-demo-data.ts';
import { person, useEvaluations } from './evaluations-fixture.ts';

const EVALUATE = '/v1/evaluations';
const BATCH = '/v1/batch-evaluations';
const RENDER = '/v1/evaluations/{evaluation_id}/render';
const NOBODY = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-000000' }] };

describe('verifier answers against its runtime OpenAPI document', () => {
  const setup = useEvaluations();
  let document: ConformanceChecker | undefined;

  /** The full caller's document: it names every claim, so it declares every operation's widest answers. */
  async function checker(): Promise<ConformanceChecker> {
    if (!document) {
      const response = await setup.verifier.get('/openapi.json', { as: 'full' });
      assert.equal(response.statusCode, 200, response.body);
      document = conformanceChecker(JSON.parse(response.body));
    }
    return document;
  }
  /** What each answer of `post` was a reply to: a request the verifier accepted must fit the document too. */
  const requests = new WeakMap<Response, { url: string; body: unknown; headers?: Record<string, string> }>();
  async function check(method: string, docPath: string, response: Response, status: number, label: string) {
    assert.equal(response.statusCode, status, `${label}: ${response.body.slice(0, 300)}`);
    const request = requests.get(response);
    if (request && status < 400) {
      (await checker()).checkRequest(method, docPath, request.url, request.headers, request.body);
    }
    return (await checker()).check(method, docPath, response, label);
  }
  const post = async (
    path: string,
    body: unknown,
    options: { as?: Caller; headers?: Record<string, string> } = {},
  ) => {
    const response = await setup.verifier.post(path, body, options);
    requests.set(response, { url: path, body, headers: options.headers });
    return response;
  };
  const raw = (path: string, headers: Record<string, string>, payload: string) =>
    setup.verifier.inject({ method: 'POST', url: path, headers, payload });

  it('describes discovery, claims and formats, and their refusals', async () => {
    const { verifier } = setup;
    for (const [docPath, url] of [
      ['/.well-known/evidence-service', '/.well-known/evidence-service'],
      ['/v1/claims', '/v1/claims'],
      ['/v1/claims/{claim_id}', '/v1/claims/person_alive'],
      ['/v1/formats', '/v1/formats'],
    ] as const) {
      await check('GET', docPath, await verifier.get(url, { as: 'full' }), 200, url);
      await check('GET', docPath, await verifier.get(url), 401, `${url} without a credential`);
      await check('GET', docPath, await verifier.get(`${url}?x=${'a'.repeat(9000)}`), 414, `${url} too long`);
    }
    const hidden = await verifier.get('/v1/claims/household_enrolled', { as: 'civil_only' });
    await check('GET', '/v1/claims/{claim_id}', hidden, 404, 'a claim the caller may not see');
    await check(
      'GET',
      '/v1/claims/{claim_id}',
      await verifier.get('/v1/claims/nope', { as: 'full' }),
      404,
      'nope',
    );
    const both = await verifier.get('/v1/claims', {
      headers: { 'x-api-key': CALLER_KEYS.full, authorization: `Bearer ${CALLER_KEYS.bearer_only}` },
    });
    await check('GET', '/v1/claims', both, 400, 'two credentials');
    await check('GET', '/healthz', await verifier.get('/healthz'), 200, '/healthz');
    await check('GET', '/ready', await verifier.get('/ready'), 200, '/ready');
  });

  it('describes evaluation results in claim-result JSON and CCCEV JSON-LD', async () => {
    const { alive, enrolledHead } = setup;
    const checked = await checker();
    const made = await post(EVALUATE, { target: person(alive), claims: ['person_alive', 'birth_date'] });
    await check('POST', EVALUATE, made, 200, 'claim-result JSON');
    assert.equal(made.headers['content-type'], CLAIM_RESULT);
    assert.ok(
      !checked.validator('POST', EVALUATE, 200, CLAIM_RESULT)({ results: [{}] }),
      'the claim result is described',
    );
    const valued = await post(EVALUATE, {
      target: person(alive),
      claims: ['person_alive', { id: 'birth_date' }],
      disclosure: 'value',
    });
    await check('POST', EVALUATE, valued, 200, 'values');
    const derived = await post(EVALUATE, { target: person(enrolledHead as Row), claims: ['eligible'] });
    await check('POST', EVALUATE, derived, 200, 'a derived claim');
    const cccev = await post(
      EVALUATE,
      { target: person(alive), claims: ['person_alive'] },
      {
        headers: { accept: CCCEV },
      },
    );
    await check('POST', EVALUATE, cccev, 200, 'CCCEV JSON-LD');
    assert.equal(cccev.headers['content-type'], CCCEV);
    const byFormat = await post(EVALUATE, { target: person(alive), claims: ['person_alive'], format: CCCEV });
    await check('POST', EVALUATE, byFormat, 200, 'CCCEV by body format');
  });

  it('describes evaluation refusals: 400, 401, 403, 404, 406, 409, 413, 414, 415, 501', async () => {
    const { alive } = setup;
    const target = person(alive);
    const cases: [string, Response, number][] = [
      ['no claims', await post(EVALUATE, { target, claims: [] }), 400],
      ['unknown member', await post(EVALUATE, { target, claims: ['person_alive'], extra: 1 }), 400],
      [
        'no purpose',
        await post(EVALUATE, { target, claims: ['person_alive'] }, { headers: { 'data-purpose': '' } }),
        400,
      ],
      [
        'malformed JSON',
        await raw(EVALUATE, { 'x-api-key': CALLER_KEYS.full, 'content-type': 'application/json' }, '{'),
        400,
      ],
      [
        'no credential',
        await post(EVALUATE, { target, claims: ['person_alive'] }, { headers: { 'x-api-key': '' } }),
        401,
      ],
      [
        'claim out of scope',
        await post(EVALUATE, { target, claims: ['household_enrolled'] }, { as: 'civil_only' }),
        403,
      ],
      [
        'disclosure not allowed',
        await post(EVALUATE, { target, claims: ['eligible'], disclosure: 'value' }),
        403,
      ],
      ['unknown claim', await post(EVALUATE, { target, claims: ['nope'] }), 404],
      [
        'format not offered',
        await post(
          EVALUATE,
          { target, claims: ['person_alive'] },
          { headers: { accept: 'application/xml' } },
        ),
        406,
      ],
      ['claim lacks format', await post(EVALUATE, { target, claims: ['birth_date'], format: CCCEV }), 406],
      ['unknown subject', await post(EVALUATE, { target: NOBODY, claims: ['person_alive'] }), 409],
      [
        'body too large',
        await post(EVALUATE, { target, claims: ['person_alive'], pad: 'x'.repeat(1_100_000) }),
        413,
      ],
      [
        'not JSON',
        await raw(EVALUATE, { 'x-api-key': CALLER_KEYS.full, 'content-type': 'text/plain' }, 'x'),
        415,
      ],
      ['plugin rule', await post(EVALUATE, { target, claims: ['plugin_check'] }), 501],
    ];
    for (const [label, response, status] of cases) await check('POST', EVALUATE, response, status, label);
    const long = await post(`${EVALUATE}?x=${'a'.repeat(9000)}`, { target, claims: ['person_alive'] });
    await check('POST', EVALUATE, long, 414, 'URI too long');
  });

  it('describes batches: results, replays and refusals', async () => {
    const { alive, enrolledHead } = setup;
    const body = {
      items: [{ target: person(alive) }, { target: NOBODY }, { target: person(enrolledHead as Row) }],
      claims: ['person_alive'],
    };
    const first = await post(BATCH, body, { headers: { 'idempotency-key': 'openapi-batch-1' } });
    await check('POST', BATCH, first, 200, 'batch');
    assert.ok(
      !(await checker()).validator(
        'POST',
        BATCH,
        200,
        'application/json',
      )({ batch_id: 'x', items: [{}], summary: {} }),
      'the batch answer is described',
    );
    const replay = await post(BATCH, body, { headers: { 'idempotency-key': 'openapi-batch-1' } });
    await check('POST', BATCH, replay, 200, 'replay');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const cases: [string, Response, number][] = [
      [
        'key reused',
        await post(
          BATCH,
          { ...body, claims: ['person_registered'] },
          { headers: { 'idempotency-key': 'openapi-batch-1' } },
        ),
        409,
      ],
      ['no items', await post(BATCH, { items: [], claims: ['person_alive'] }), 400],
      ['no credential', await post(BATCH, body, { headers: { 'x-api-key': '' } }), 401],
      [
        'claim out of scope',
        await post(BATCH, { ...body, claims: ['household_enrolled'] }, { as: 'civil_only' }),
        403,
      ],
      ['unknown claim', await post(BATCH, { ...body, claims: ['nope'] }), 404],
      ['not JSON back', await post(BATCH, body, { headers: { accept: 'text/csv' } }), 406],
      [
        'over the claim limit',
        await post(BATCH, { items: Array(4).fill({ target: NOBODY }), claims: ['person_registered'] }),
        413,
      ],
      [
        'not JSON',
        await raw(BATCH, { 'x-api-key': CALLER_KEYS.full, 'content-type': 'text/plain' }, 'x'),
        415,
      ],
      ['not batchable', await post(BATCH, { ...body, claims: ['birth_date'] }), 501],
    ];
    for (const [label, response, status] of cases) await check('POST', BATCH, response, status, label);
  });

  it('describes renders in both media types and their refusals', async () => {
    const { alive } = setup;
    const target = person(alive);
    const made = JSON.parse((await post(EVALUATE, { target, claims: ['person_alive'] })).body);
    const id = made.results[0].evaluation_id as string;
    await check('POST', RENDER, await post(`/v1/evaluations/${id}/render`, {}), 200, 'claim-result render');
    const cccev = await post(EVALUATE, { target, claims: ['person_alive'] }, { headers: { accept: CCCEV } });
    const cccevId = JSON.parse(cccev.body)['@graph'][0]['dcterms:identifier'] as string;
    const rendered = await post(`/v1/evaluations/${cccevId}/render`, { format: CCCEV });
    await check('POST', RENDER, rendered, 200, 'CCCEV render');
    assert.equal(rendered.headers['content-type'], CCCEV);
    const cases: [string, Response, number][] = [
      ['unknown member', await post(`/v1/evaluations/${id}/render`, { extra: 1 }), 400],
      [
        'no credential',
        await post(`/v1/evaluations/${id}/render`, {}, { headers: { 'x-api-key': '' } }),
        401,
      ],
      ['another format', await post(`/v1/evaluations/${id}/render`, { format: CCCEV }), 403],
      ['unknown evaluation', await post('/v1/evaluations/01J00000000000000000000000/render', {}), 404],
      ['another caller', await post(`/v1/evaluations/${id}/render`, {}, { as: 'civil_only' }), 404],
      [
        'format not offered',
        await post(`/v1/evaluations/${id}/render`, {}, { headers: { accept: 'application/xml' } }),
        406,
      ],
      [
        'not JSON',
        await raw(
          `/v1/evaluations/${id}/render`,
          { 'x-api-key': CALLER_KEYS.full, 'content-type': 'text/plain' },
          'x',
        ),
        415,
      ],
    ];
    for (const [label, response, status] of cases) await check('POST', RENDER, response, status, label);
  });
});

// Aggregates, metadata documents and the API catalog of the demo relay, successes and refusals, each checked against
// the operation the caller's own /openapi.json gives for it: status, media type, headers and body schema.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { type Persona, PURPOSE, TEST_KEYS } from '../helpers/relay-harness.ts';
import { useConformanceRelay } from './openapi-conformance-fixture.ts';

const SP = '/v1/datasets/social_protection';
const PAYMENTS = `${SP}/aggregates/payments_by_district`;
const PERSONS = '/v1/datasets/civil_registry/aggregates/persons_by_district';
const SDMX = 'application/vnd.sdmx.data+json;version=2.1';
/** Values for templated metadata parameters, so documented paths can be requested. */
const EXAMPLES: Record<string, string> = {
  profile_id: 'dcat-ap',
  form_id: 'cash-transfer-application',
  record_id: 'social_protection',
  offering_id: 'sp-household-enrolment',
  profile: 'bregdcat-ap',
};

describe('relay aggregates and metadata against the runtime OpenAPI document', () => {
  const conformance = useConformanceRelay();
  const documentOf = (persona: Persona) => conformance.documentOf(persona);

  type Options = { as?: Persona; documentAs?: Persona; headers?: Record<string, string>; status?: number };
  async function check(method: string, docPath: string, response: Response, options: Options, url: string) {
    if (options.status !== undefined) assert.equal(response.statusCode, options.status, response.body);
    const checker = await documentOf(options.documentAs ?? options.as ?? 'analyst');
    return checker.check(method, docPath, response, `${method} ${url}`);
  }
  async function get(docPath: string, url: string, options: Options = {}) {
    const response = await conformance.relay.get(url, { as: options.as, headers: options.headers });
    // What the relay accepted, a client generated from the document must be able to send.
    if (response.statusCode < 400) {
      (await documentOf(options.documentAs ?? options.as ?? 'analyst')).checkRequest(
        'GET',
        docPath,
        url,
        options.headers,
      );
    }
    return { response, body: await check('GET', docPath, response, options, url) };
  }
  async function post(docPath: string, url: string, payload: string, options: Options = {}) {
    const response = await conformance.relay.inject({
      method: 'POST',
      url,
      headers: {
        ...(options.as ? { authorization: `Bearer ${TEST_KEYS[options.as]}` } : {}),
        'content-type': 'application/json',
        ...options.headers,
      },
      payload,
    });
    if (response.statusCode < 400) {
      (await documentOf(options.documentAs ?? options.as ?? 'analyst')).checkRequest(
        'POST',
        docPath,
        url,
        options.headers,
        payload.trim() === '' ? undefined : JSON.parse(payload),
      );
    }
    return { response, body: await check('POST', docPath, response, options, url) };
  }

  it('describes aggregate discovery and its 304s', async () => {
    for (const path of [`${SP}/aggregates`, `${SP}/measures`, `${SP}/dimensions`, `${PAYMENTS}/structure`]) {
      const first = await get(path, path, { as: 'analyst', status: 200 });
      await get(path, path, {
        as: 'analyst',
        headers: { 'if-none-match': String(first.response.headers.etag) },
        status: 304,
      });
    }
    await get(`${SP}/measures/{id}`, `${SP}/measures/payments`, { as: 'analyst', status: 200 });
    await get(`${SP}/dimensions/{id}`, `${SP}/dimensions/district`, { as: 'analyst', status: 200 });
    await get(`${SP}/measures/{id}`, `${SP}/measures/nope`, { as: 'analyst', status: 404 });
    await get(`${SP}/dimensions/{id}`, `${SP}/dimensions/nope`, { as: 'analyst', status: 404 });
    await get(`${SP}/aggregates`, `${SP}/aggregates`, { documentAs: 'analyst', status: 401 });
    // A caller who may discover none of them gets an empty list.
    await get(`${SP}/aggregates`, `${SP}/aggregates`, {
      as: 'verifier_service',
      documentAs: 'analyst',
      status: 200,
    });
  });

  it('describes aggregate results in JSON, CSV and SDMX, by GET and POST, with their 304', async () => {
    const json = await get(PAYMENTS, `${PAYMENTS}?group_by=district,cycle&cycle.gte=2026-03`, {
      as: 'analyst',
      status: 200,
    });
    const checker = await documentOf('analyst');
    assert.ok(!checker.validator('GET', PAYMENTS, 200, 'application/json')({}), 'JSON result is described');
    assert.ok(!checker.validator('GET', PAYMENTS, 200, SDMX)({}), 'SDMX message is described');
    await get(PAYMENTS, `${PAYMENTS}?group_by=district,cycle&cycle.gte=2026-03`, {
      as: 'analyst',
      headers: { 'if-none-match': String(json.response.headers.etag) },
      status: 304,
    });
    await get(PAYMENTS, `${PAYMENTS}?group_by=district&cycle.eq=2026-03&household.district.eq=lakeside`, {
      as: 'analyst',
      status: 200,
    });
    const csv = await get(PAYMENTS, `${PAYMENTS}?f=csv`, { as: 'analyst', status: 200 });
    assert.match(String(csv.response.headers['content-type']), /^text\/csv/);
    await get(PAYMENTS, PAYMENTS, { as: 'analyst', headers: { accept: SDMX }, status: 200 });
    await get(PERSONS, `${PERSONS}?f=sdmx-json`, {
      as: 'analyst',
      headers: { 'data-purpose': PURPOSE },
      status: 200,
    });
    const query = `${PAYMENTS}/query`;
    for (const body of [
      {},
      { group_by: ['payment_status'], filters: { cycle: { from: '2026-02', to: '2026-04' } } },
      { format: 'csv' },
      { format: 'sdmx-json', measures: ['payments'] },
      // `indicators`, the old name of `measures`, is still read.
      { indicators: ['payments'], group_by: [] },
      { filters: { cycle: ['2026-02', '2026-03'], payment_status: 'paid' }, temporal: { from: '2026-01' } },
    ]) {
      await post(query, query, JSON.stringify(body), { as: 'analyst', status: 200 });
    }
    // No body, or blanks only: the empty query, so the document may not call the body required.
    for (const blank of ['', ' \n']) await post(query, query, blank, { as: 'analyst', status: 200 });
    // A POST whose If-None-Match matches is refused with 412, which the document declares (and no 304).
    await post(query, query, '{}', { as: 'analyst', headers: { 'if-none-match': '*' }, status: 412 });
    const document = (await conformance.relay.get('/openapi.json', { as: 'analyst' })).json();
    assert.equal(document.paths[query].post.responses['304'], undefined);
  });

  it('describes aggregate refusals: 400, 401, 403, 413, 414, 415', async () => {
    for (const url of [
      `${PAYMENTS}?f=xml`,
      `${PAYMENTS}?group_by=nope`,
      `${PAYMENTS}?max_rows=10001`,
      `${PAYMENTS}?cycle.like=x`,
    ]) {
      await get(PAYMENTS, url, { as: 'analyst', status: 400 });
    }
    await get(PAYMENTS, PAYMENTS, { as: 'analyst', headers: { accept: 'application/xml' }, status: 400 });
    await get(PERSONS, PERSONS, { as: 'analyst', status: 400 });
    await get(PAYMENTS, PAYMENTS, { documentAs: 'analyst', status: 401 });
    await get(PAYMENTS, PAYMENTS, { as: 'caseworker', documentAs: 'analyst', status: 403 });
    await get(PAYMENTS, `${PAYMENTS}?x=${'a'.repeat(9000)}`, { as: 'analyst', status: 414 });
    const query = `${PAYMENTS}/query`;
    for (const body of ['{"filters":[]}', '{"nope":1}', '{"format":"xml"}', '{"group_by":']) {
      await post(query, query, body, { as: 'analyst', status: 400 });
    }
    await post(query, query, '{}', { documentAs: 'analyst', status: 401 });
    await post(query, query, '{}', { as: 'caseworker', documentAs: 'analyst', status: 403 });
    await post(query, query, JSON.stringify({ pad: 'x'.repeat(1_100_000) }), { as: 'analyst', status: 413 });
    await post(query, query, 'x', { as: 'analyst', headers: { 'content-type': 'text/plain' }, status: 415 });
  });

  it('describes every metadata document, its 304 and its refusals', async () => {
    const document = (await conformance.relay.get('/openapi.json', { as: 'caseworker' })).json() as {
      paths: Record<string, unknown>;
    };
    const paths = Object.keys(document.paths).filter((path) => path.startsWith('/metadata'));
    assert.ok(paths.length > 10, paths.join(' '));
    for (const path of paths) {
      const url = path.replace(/\{(\w+)\}/g, (_match, name: string) => EXAMPLES[name] ?? name);
      const first = await get(path, url, { as: 'caseworker', status: 200 });
      await get(path, url, {
        as: 'caseworker',
        headers: { 'if-none-match': String(first.response.headers.etag) },
        status: 304,
      });
      await get(path, url, { documentAs: 'caseworker', status: 401 });
    }
    await get('/metadata/catalog', '/metadata/catalog', {
      as: 'operator',
      documentAs: 'caseworker',
      status: 403,
    });
    await get('/metadata/evidence-offerings', '/metadata/evidence-offerings?nope=1', {
      as: 'caseworker',
      status: 400,
    });
    await get('/metadata/evidence-offerings', '/metadata/evidence-offerings?country=', {
      as: 'caseworker',
      status: 400,
    });
    await get('/metadata/evidence-offerings/{offering_id}', '/metadata/evidence-offerings/nope', {
      as: 'caseworker',
      status: 404,
    });
    await get('/metadata/profiles/{profile_id}', '/metadata/profiles/nope', {
      as: 'caseworker',
      status: 404,
    });
  });

  it('describes the API catalog and its 304', async () => {
    const first = await get('/.well-known/api-catalog', '/.well-known/api-catalog', {
      documentAs: 'caseworker',
      status: 200,
    });
    await get('/.well-known/api-catalog', '/.well-known/api-catalog', {
      documentAs: 'caseworker',
      headers: { 'if-none-match': String(first.response.headers.etag) },
      status: 304,
    });
  });
});

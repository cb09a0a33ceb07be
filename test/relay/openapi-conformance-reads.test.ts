// Entity reads, datasets and probes of the demo relay, successes and refusals, each checked against the operation the
// caller's own /openapi.json gives for it: status, media type, headers and body schema.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conformanceChecker } from '../helpers/openapi-conformance.ts';
import { loadingDemoRelay, type Persona, PURPOSE, TEST_KEYS } from '../helpers/relay-harness.ts';
import { useConformanceRelay } from './openapi-conformance-fixture.ts';

const SP = '/v1/datasets/social_protection';
const HOUSEHOLDS = `${SP}/entities/households`;
const MEMBERS = `${SP}/entities/members`;
const PAYMENTS = `${SP}/entities/payments`;
const PERSONS = '/v1/datasets/civil_registry/entities/persons';

describe('relay entity reads against the runtime OpenAPI document', () => {
  const conformance = useConformanceRelay();
  const documentOf = (persona: Persona) => conformance.documentOf(persona);

  /** GETs `url` (as `as`, or without a credential) and checks it against `docPath` in `documentAs`'s document. */
  async function get(
    docPath: string,
    url: string,
    options: { as?: Persona; documentAs?: Persona; headers?: Record<string, string>; status?: number } = {},
  ) {
    const response = await conformance.relay.get(url, { as: options.as, headers: options.headers });
    if (options.status !== undefined) assert.equal(response.statusCode, options.status, response.body);
    const checker = await documentOf(options.documentAs ?? options.as ?? 'caseworker');
    // What the relay accepted, a client generated from the document must be able to send.
    if (response.statusCode < 400) checker.checkRequest('GET', docPath, url, options.headers);
    return { response, body: checker.check('GET', docPath, response, `GET ${url}`) };
  }

  it('describes pages of records: filters, projections, expansions and the walk by cursor', async () => {
    const records = `${HOUSEHOLDS}/records`;
    for (const query of [
      'limit=2',
      'district=lakeside&limit=3',
      'district.eq=lakeside&household_size.eq=3&limit=3',
      'district.in=lakeside,redfield&household_size.gte=3&limit=2',
      'household_size.between=2,5&fields=household_id,district',
      'limit=1&expand=members,payments',
      'enrollment_status=nobody',
    ]) {
      await get(records, `${records}?${query}`, { as: 'caseworker', status: 200 });
    }
    const first = await get(records, `${records}?limit=2`, { as: 'caseworker', status: 200 });
    const { next_cursor: cursor } = (first.body as { pagination: { next_cursor: string } }).pagination;
    assert.ok(first.response.headers.link, 'a next page is linked');
    await get(records, `${records}?limit=2&cursor=${cursor}`, { as: 'caseworker', status: 200 });
    await get(records, `${records}?limit=2`, {
      as: 'caseworker',
      headers: { 'if-none-match': String(first.response.headers.etag) },
      status: 304,
    });
    await get(`${PERSONS}/records`, `${PERSONS}/records?national_id=FAKE-412781`, {
      as: 'caseworker',
      headers: { 'data-purpose': PURPOSE },
      status: 200,
    });
    await get(`${PERSONS}/records`, `${PERSONS}/records?national_id.eq=FAKE-412781&deceased.eq=false`, {
      as: 'caseworker',
      headers: { 'data-purpose': PURPOSE },
      status: 200,
    });
    // Ranges over a nullable date: the bounds are dates, never null.
    await get(
      `${PAYMENTS}/records`,
      `${PAYMENTS}/records?paid_on.gte=2026-01-01&paid_on.lte=2026-12-31&limit=2`,
      {
        as: 'caseworker',
        headers: { 'data-purpose': PURPOSE },
        status: 200,
      },
    );
  });

  it('describes one record, projected and expanded, and its 304', async () => {
    const record = `${HOUSEHOLDS}/records/{id}`;
    const plain = await get(record, `${HOUSEHOLDS}/records/hh-1001`, { as: 'caseworker', status: 200 });
    await get(record, `${HOUSEHOLDS}/records/hh-1001?fields=household_id,enrolled_on`, {
      as: 'caseworker',
      status: 200,
    });
    await get(record, `${HOUSEHOLDS}/records/hh-1001?expand=members`, { as: 'caseworker', status: 200 });
    await get(`${MEMBERS}/records/{id}`, `${MEMBERS}/records/mem-5001?expand=household`, {
      as: 'caseworker',
      status: 200,
    });
    await get(record, `${HOUSEHOLDS}/records/hh-1001`, {
      as: 'caseworker',
      headers: { 'if-none-match': String(plain.response.headers.etag) },
      status: 304,
    });
  });

  it('describes relationships (a page for has_many, a record for belongs_to), schemas, datasets and probes', async () => {
    const members = `${HOUSEHOLDS}/records/{id}/relationships/members`;
    const page = await get(members, `${HOUSEHOLDS}/records/hh-1001/relationships/members?limit=1`, {
      as: 'caseworker',
      status: 200,
    });
    const { next_cursor: cursor } = (page.body as { pagination: { next_cursor?: string } }).pagination;
    if (cursor) {
      await get(members, `${HOUSEHOLDS}/records/hh-1001/relationships/members?limit=1&cursor=${cursor}`, {
        as: 'caseworker',
        status: 200,
      });
    }
    await get(
      `${MEMBERS}/records/{id}/relationships/household`,
      `${MEMBERS}/records/mem-5001/relationships/household`,
      { as: 'caseworker', status: 200 },
    );
    const schema = await get(`${HOUSEHOLDS}/schema`, `${HOUSEHOLDS}/schema`, {
      as: 'caseworker',
      status: 200,
    });
    await get(`${HOUSEHOLDS}/schema`, `${HOUSEHOLDS}/schema`, {
      as: 'caseworker',
      headers: { 'if-none-match': String(schema.response.headers.etag) },
      status: 304,
    });
    await get('/v1/datasets', '/v1/datasets', { as: 'caseworker', status: 200 });
    await get(SP, SP, { as: 'caseworker', status: 200 });
    await get('/healthz', '/healthz', { status: 200, documentAs: 'caseworker' });
    await get('/ready', '/ready', { status: 200, documentAs: 'caseworker' });
  });

  it('describes 400 refusals: filters, limits, cursors, projections, purpose', async () => {
    const records = `${HOUSEHOLDS}/records`;
    for (const query of [
      'limit=0',
      'limit=100000',
      'cursor=not-a-cursor',
      'fields=nope',
      'nope=1',
      'district.like=x',
      'household_size.between=5,2',
      'expand=nope',
    ]) {
      await get(records, `${records}?${query}`, { as: 'caseworker', status: 400 });
    }
    await get(`${PERSONS}/records`, `${PERSONS}/records?district=lakeside`, {
      as: 'caseworker',
      headers: { 'data-purpose': PURPOSE },
      status: 400,
    });
    await get(`${PERSONS}/records`, `${PERSONS}/records?national_id=FAKE-412781`, {
      as: 'caseworker',
      status: 400,
    });
    await get(`${PERSONS}/records/{id}`, `${PERSONS}/records/per-10001`, { as: 'caseworker', status: 400 });
    await get(`${HOUSEHOLDS}/records/{id}`, `${HOUSEHOLDS}/records/hh-1001?district=x`, {
      as: 'caseworker',
      status: 400,
    });
    await get(
      `${HOUSEHOLDS}/records/{id}/relationships/members`,
      `${HOUSEHOLDS}/records/hh-1001/relationships/members?limit=0`,
      { as: 'caseworker', status: 400 },
    );
  });

  it('describes 401, 403 and 404 refusals', async () => {
    const records = `${HOUSEHOLDS}/records`;
    for (const [docPath, url] of [
      [records, records],
      [`${HOUSEHOLDS}/records/{id}`, `${HOUSEHOLDS}/records/hh-1001`],
      [`${HOUSEHOLDS}/schema`, `${HOUSEHOLDS}/schema`],
      ['/v1/datasets', '/v1/datasets'],
      [SP, SP],
    ] as const) {
      await get(docPath, url, { documentAs: 'caseworker', status: 401 });
      const wrong = await conformance.relay.inject({
        method: 'GET',
        url,
        headers: { authorization: 'Bearer not-a-key-0000000000000000000000' },
      });
      assert.equal(wrong.statusCode, 401, wrong.body);
      (await documentOf('caseworker')).check('GET', docPath, wrong, `GET ${url} (unknown key)`);
    }
    // The analyst sees the entities (metadata scope) but may not read their rows.
    await get(records, `${records}?limit=1`, { as: 'analyst', status: 403 });
    await get(`${HOUSEHOLDS}/records/{id}`, `${HOUSEHOLDS}/records/hh-1001`, { as: 'analyst', status: 403 });
    await get(
      `${HOUSEHOLDS}/records/{id}/relationships/members`,
      `${HOUSEHOLDS}/records/hh-1001/relationships/members`,
      { as: 'analyst', status: 403 },
    );
    // A caller seeing no dataset gets an empty list; one it may not see is refused like an unknown one.
    await get('/v1/datasets', '/v1/datasets', { as: 'operator', documentAs: 'caseworker', status: 200 });
    await get(SP, SP, { as: 'health_planner', documentAs: 'caseworker', status: 403 });
    await get(`${HOUSEHOLDS}/records/{id}`, `${HOUSEHOLDS}/records/hh-0000`, {
      as: 'caseworker',
      status: 404,
    });
    await get(
      `${HOUSEHOLDS}/records/{id}/relationships/members`,
      `${HOUSEHOLDS}/records/hh-0000/relationships/members`,
      { as: 'caseworker', status: 404 },
    );
    await get(
      `${MEMBERS}/records/{id}/relationships/household`,
      `${MEMBERS}/records/mem-0000/relationships/household`,
      { as: 'caseworker', status: 404 },
    );
  });

  it('describes 413 for too many filter values and 414 for an overlong URI', async () => {
    const records = `${HOUSEHOLDS}/records`;
    const values = Array.from({ length: 101 }, (_, index) => `hh-${index}`).join(',');
    await get(records, `${records}?household_id.in=${values}`, { as: 'caseworker', status: 413 });
    const long = `x=${'a'.repeat(9000)}`;
    for (const [docPath, url] of [
      [records, records],
      [`${HOUSEHOLDS}/records/{id}`, `${HOUSEHOLDS}/records/hh-1001`],
      ['/healthz', '/healthz'],
    ] as const) {
      await get(docPath, `${url}?${long}`, { as: 'caseworker', status: 414 });
    }
  });
});

describe('relay answers while loading against the runtime OpenAPI document', () => {
  it('describes the 503 of the probe and of the data routes, with their Retry-After', async () => {
    const relay = loadingDemoRelay();
    try {
      const auth = { authorization: `Bearer ${TEST_KEYS.caseworker}` };
      const document = await relay.app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: auth,
      });
      assert.equal(document.statusCode, 200, document.body);
      const checker = conformanceChecker(document.json());
      const ready = await relay.app.inject({ method: 'GET', url: '/ready' });
      assert.equal(ready.statusCode, 503, ready.body);
      checker.check('GET', '/ready', ready);
      for (const [docPath, url] of [
        [`${HOUSEHOLDS}/records`, `${HOUSEHOLDS}/records`],
        [`${HOUSEHOLDS}/records/{id}`, `${HOUSEHOLDS}/records/hh-1001`],
        [
          `${HOUSEHOLDS}/records/{id}/relationships/members`,
          `${HOUSEHOLDS}/records/hh-1001/relationships/members`,
        ],
      ] as const) {
        const response = await relay.app.inject({ method: 'GET', url, headers: auth });
        assert.equal(response.statusCode, 503, response.body);
        checker.check('GET', docPath, response, `GET ${url} while loading`);
      }
      const analyst = { authorization: `Bearer ${TEST_KEYS.analyst}` };
      const analystDocument = await relay.app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: analyst,
      });
      const aggregate = `${SP}/aggregates/payments_by_district`;
      const refused = await relay.app.inject({ method: 'GET', url: aggregate, headers: analyst });
      assert.equal(refused.statusCode, 503, refused.body);
      conformanceChecker(analystDocument.json()).check(
        'GET',
        aggregate,
        refused,
        `GET ${aggregate} while loading`,
      );
    } finally {
      await relay.loaded;
      await relay.close();
    }
  });
});

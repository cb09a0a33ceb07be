// Verifier error table (§2.12), refused for their form before any read: bodies, URIs, requests, targets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertProblem } from '../helpers/http-checks.ts';
import { injectThroughLane } from '../helpers/inject-through-lane.ts';
import { CALLER_KEYS, EVIDENCE_PURPOSE } from '../helpers/verifier-harness.ts';

import { ALIVE, useErrorTable } from './error-table-fixture.ts';

describe('verifier error table: requests refused', () => {
  const table = useErrorTable();

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
        name: 'a form (what curl -d sends by default)',
        body: valid,
        type: 'application/x-www-form-urlencoded',
        status: 415,
        code: 'http.unsupported_media_type',
      },
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
        code: 'http.invalid_body',
      },
      {
        // Read leniently, the byte would be U+FFFD: another byte string would name the same subject.
        name: 'invalid UTF-8 in an otherwise valid request',
        body: Buffer.concat([
          Buffer.from(valid.slice(0, valid.indexOf('"value":"') + 9)),
          Buffer.from([0xc3]),
          Buffer.from(valid.slice(valid.indexOf('"value":"') + 9)),
        ]),
        status: 400,
        code: 'http.invalid_body',
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
      const lane = await injectThroughLane(table.verifier.verifier.app, options);
      const fastify = await table.verifier.verifier.app.inject(options);
      assert.equal(lane.statusCode, status, `${name}: ${lane.body}`);
      assert.equal(fastify.statusCode, status, `${name} (Fastify): ${fastify.body}`);
      if (code === undefined) continue;
      for (const response of [lane, fastify]) assertProblem(response, status, code);
      const detail = (response: typeof lane) => JSON.parse(response.body).detail;
      assert.equal(detail(lane), detail(fastify), `${name}: the same detail on both paths`);
      // What to send instead (curl -d sends a form's media type unless told otherwise).
      if (status === 415) assert.match(detail(lane), /application\/json/, name);
    }
    assert.equal(table.requests.length, 2, 'only the two valid evaluations read their source');
  });

  it('415 for a body in a content coding, on the fast lane and Fastify alike, before any read', async () => {
    const headers = {
      'content-type': 'application/json',
      'x-api-key': CALLER_KEYS.full,
      'data-purpose': EVIDENCE_PURPOSE,
    };
    const body = JSON.stringify({ target: ALIVE, claims: ['person_alive'] });
    for (const [url, payload] of [
      ['/v1/evaluations', body],
      ['/v1/batch-evaluations', JSON.stringify({ items: [{ target: ALIVE }], claims: ['person_alive'] })],
      ['/v1/evaluations/01JZ0000000000000000000000/render', '{}'],
    ] as const) {
      for (const coding of ['gzip', 'br, gzip', 'deflate']) {
        const options = {
          method: 'POST' as const,
          url,
          headers: { ...headers, 'content-encoding': coding },
          payload,
        };
        for (const response of [
          await injectThroughLane(table.verifier.verifier.app, options),
          await table.verifier.verifier.app.inject(options),
        ]) {
          assertProblem(response, 415, 'http.unsupported_media_type');
          assert.match(String(JSON.parse(response.body).detail), /Content-Encoding/);
        }
      }
    }
    assert.equal(table.requests.length, 0, 'nothing was read');
    const identity = await injectThroughLane(table.verifier.verifier.app, {
      method: 'POST',
      url: '/v1/evaluations',
      headers: { ...headers, 'content-encoding': 'identity' },
      payload: body,
    });
    assert.equal(identity.statusCode, 200, identity.body);
  });

  it('400 http.invalid_body for a member named twice in a batch or a render body, before any read', async () => {
    const headers = {
      'content-type': 'application/json',
      'x-api-key': CALLER_KEYS.full,
      'data-purpose': EVIDENCE_PURPOSE,
    };
    const batch = await table.verifier.inject({
      method: 'POST',
      url: '/v1/batch-evaluations',
      headers,
      payload: `{"items":[{"target":${JSON.stringify(ALIVE)}}],"claims":["person_alive"],"disclosure":"predicate","disclosure":"value"}`,
    });
    assert.match(String(assertProblem(batch, 400, 'http.invalid_body').detail), /named twice|twice/);
    const render = await table.verifier.inject({
      method: 'POST',
      url: '/v1/evaluations/01JZ0000000000000000000000/render',
      headers,
      payload: '{"disclosure":"redacted","disclosure":"value"}',
    });
    assertProblem(render, 400, 'http.invalid_body');
    // A name repeated in different objects, or as a value, is no duplicate.
    const fine = await table.verifier.inject({
      method: 'POST',
      url: '/v1/batch-evaluations',
      headers,
      payload: JSON.stringify({ items: [{ target: ALIVE }, { target: ALIVE }], claims: ['person_alive'] }),
    });
    assert.equal(fine.statusCode, 200, fine.body);
    assert.equal(table.requests.length, 1);
  });

  it('414 request.uri_too_long, as the verifier contract names it, for a long URI or path segment', async () => {
    for (const path of [`/v1/claims/${'a'.repeat(9000)}`, `/v1/claims?pad=${'a'.repeat(9000)}`]) {
      const response = await table.verifier.get(path);
      assertProblem(response, 414, 'request.uri_too_long');
    }
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
      // Schemes differing only by case (or compatibility form) would leave a reader to guess which one is meant.
      ...[
        ['national_id', 'NATIONAL_ID'],
        ['National_Id', 'national_id'],
        ['national_id', '\uff4eational_id'],
      ].map((schemes) => ({
        target: {
          type: 'person',
          identifiers: schemes.map((scheme, index) => ({ scheme, value: `v${index}` })),
        },
        claims: ['person_alive'],
      })),
    ]) {
      await table.deniedBeforeReads(body, 400, 'request.invalid');
    }
    await table.deniedBeforeReads({ target: ALIVE, claims: ['person_alive'] }, 400, 'request.invalid', {
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
      const problem = assertProblem(await table.verifier.inject(options), 400, 'request.invalid');
      assert.match(String(problem.detail), /`target\.attributes\.n`: .*2\^53/, number);
      const batch = await table.verifier.inject({
        ...options,
        url: '/v1/batch-evaluations',
        payload: `{"items":[{"target":${target}}],"claims":["person_alive"]}`,
      });
      assertProblem(batch, 400, 'request.invalid');
    }
    assert.equal(table.requests.length, 0);
    // Safe integers and fractions are numbers like any other.
    for (const n of [9007199254740991, -9007199254740991, 0.1]) {
      const response = await table.verifier.evaluate({
        target: { ...ALIVE, attributes: { n } },
        claims: ['person_alive'],
      });
      assert.equal(response.statusCode, 200, response.body);
    }
  });

  it('400 target.attributes_insufficient and target.identifier_missing', async () => {
    await table.deniedBeforeReads(
      { target: { type: 'person' }, claims: ['person_alive'] },
      400,
      'target.attributes_insufficient',
    );
    const problem = await table.deniedBeforeReads(
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
      await table.deniedBeforeReads(
        {
          target: { type: 'person', identifiers: [{ scheme: 'national_id', value }] },
          claims: ['person_alive'],
        },
        400,
        'target.identifier_missing',
      );
    }
  });
});

// The HTTP bootstrap seen from outside: request ids, problem bodies, security headers, size limits and timeouts.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { MAX_BODY_BYTES, MAX_URI_BYTES } from '../../src/platform/http/create-server.ts';
import { createLogger } from '../../src/platform/log.ts';
import {
  assertProblem,
  assertRequestId,
  assertSecurityHeaders,
  bareApp,
  listenLocal,
  rawRequest,
  sendRaw,
  ULID_PATTERN,
} from '../helpers/http-checks.ts';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';
const SCHEMA = '/v1/datasets/social_protection/entities/households/schema';

/** A JSON object body of exactly `bytes` bytes. */
function jsonOfSize(bytes: number): string {
  const shell = '{"pad":""}';
  return `{"pad":"${'x'.repeat(bytes - shell.length)}"}`;
}

describe('request ids and problem bodies (demo relay)', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('gives every response its own ULID, equal to the problem request_id and to the audit record', async () => {
    const ok = await relay.get(`${HOUSEHOLDS}?limit=1`, { as: 'caseworker' });
    assert.equal(ok.statusCode, 200);
    const ids = [assertRequestId(ok)];
    const tooMany = Array.from({ length: 101 }, (_, i) => `d${i}`).join(',');
    const problems = [
      [await relay.get(HOUSEHOLDS), 401, 'auth.missing_credential'],
      [await relay.get(HOUSEHOLDS, { as: 'catalog_viewer' }), 403, 'auth.scope_denied'],
      [await relay.get('/no/such/route', { as: 'caseworker' }), 404, 'http.not_found'],
      [await relay.get(`${HOUSEHOLDS}?limit=0`, { as: 'caseworker' }), 400, 'filter.limit_out_of_range'],
      [
        await relay.get(`${HOUSEHOLDS}?district.in=${tooMany}`, { as: 'caseworker' }),
        413,
        'filter.too_many_values',
      ],
    ] as const;
    for (const [response, status, code] of problems) {
      const body = assertProblem(response, status, code);
      ids.push(body.request_id as string);
    }
    assert.equal(new Set(ids).size, ids.length, 'request ids repeat');
    const records = relay.auditRecords();
    for (const id of ids) assert.equal(records.filter((record) => record.request_id === id).length, 1, id);
  });

  it('never adopts the caller x-request-id, but records it as client_request_id', async () => {
    const callerUlid = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const ok = await relay.get(`${HOUSEHOLDS}?limit=1`, {
      as: 'caseworker',
      headers: { 'x-request-id': callerUlid },
    });
    const okId = assertRequestId(ok);
    assert.notEqual(okId, callerUlid);
    const denied = await relay.get(HOUSEHOLDS, { headers: { 'x-request-id': 'caller-correlation-42' } });
    const body = assertProblem(denied, 401, 'auth.missing_credential');
    assert.notEqual(body.request_id, 'caller-correlation-42');
    const plain = await relay.get(`${HOUSEHOLDS}?limit=1`, { as: 'caseworker' });
    const long = await relay.get(`${HOUSEHOLDS}?limit=1`, {
      as: 'caseworker',
      headers: { 'x-request-id': 'c'.repeat(300) },
    });

    // Not printable ASCII: not recorded (nor, in the verifier, forwarded to sources) as the caller's id.
    const odd = [];
    for (const value of ['a\tb', 'caf\u00e9', '', 'ok\u00ff']) {
      odd.push(
        await relay.get(`${HOUSEHOLDS}?limit=1`, { as: 'caseworker', headers: { 'x-request-id': value } }),
      );
    }

    const byId = new Map(relay.auditRecords().map((record) => [record.request_id, record]));
    assert.equal(byId.get(okId)?.client_request_id, callerUlid);
    assert.equal(byId.get(body.request_id)?.client_request_id, 'caller-correlation-42');
    assert.equal(byId.get(assertRequestId(plain))?.client_request_id, null);
    assert.equal(byId.get(assertRequestId(long))?.client_request_id, 'c'.repeat(128));
    for (const response of odd) {
      assert.equal(response.statusCode, 200);
      assert.equal(byId.get(assertRequestId(response))?.client_request_id, null);
    }
  });

  it('sets the security headers on success, error and 304 responses', async () => {
    const ok = await relay.get(SCHEMA, { as: 'caseworker' });
    assert.equal(ok.statusCode, 200);
    assertSecurityHeaders(ok);
    const etag = ok.headers.etag;
    assert.equal(typeof etag, 'string');
    const notModified = await relay.get(SCHEMA, {
      as: 'caseworker',
      headers: { 'if-none-match': String(etag) },
    });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    assertSecurityHeaders(notModified);
    for (const response of [
      await relay.get(SCHEMA),
      await relay.get(SCHEMA, { as: 'health_planner' }),
      await relay.get('/nowhere'),
      await relay.inject({ method: 'HEAD', url: '/healthz' }),
    ]) {
      assertSecurityHeaders(response);
    }
  });

  it('answers a JSON body over 1 MiB with 413 internal.payload_too_large, declared or streamed', async () => {
    const big = jsonOfSize(MAX_BODY_BYTES + 1);
    const declared = await relay.inject({
      method: 'POST',
      url: '/v1/datasets',
      payload: big,
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(declared, 413, 'internal.payload_too_large');
    assertSecurityHeaders(declared);
    // Without Content-Length the limit is enforced while the body streams in.
    const streamed = await relay.inject({
      method: 'POST',
      url: '/v1/datasets',
      payload: Readable.from([Buffer.from(big)]),
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(streamed, 413, 'internal.payload_too_large');
    const small = await relay.inject({ method: 'POST', url: '/v1/datasets', payload: { small: true } });
    assertProblem(small, 404, 'http.not_found');
  });

  it('answers an unknown route or method with the 404 http.not_found problem', async () => {
    for (const response of [
      await relay.get('/v2/datasets', { as: 'caseworker' }),
      await relay.inject({ method: 'DELETE', url: '/v1/datasets' }),
      await relay.get('/v1/datasets/social_protection/entities/households/records/hh-1001/extra/x'),
    ]) {
      const body = assertProblem(response, 404, 'http.not_found');
      assert.equal(body.title, 'Not found');
    }
  });
});

describe('body limit on a POST route', () => {
  const app = bareApp();
  app.post('/echo', async (request) => ({ bytes: JSON.stringify(request.body).length }));
  after(() => app.close());

  it('accepts exactly 1 MiB and refuses one byte more', async () => {
    const atLimit = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: jsonOfSize(MAX_BODY_BYTES),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(atLimit.statusCode, 200);
    assert.equal(atLimit.json().bytes, MAX_BODY_BYTES);
    const over = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: jsonOfSize(MAX_BODY_BYTES + 1),
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(over, 413, 'internal.payload_too_large');
    const broken = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: '{"pad":',
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(broken, 400, 'http.invalid_body');
  });
});

describe('URI limits over a real socket', () => {
  let relay: TestRelay;
  let port: number;
  before(async () => {
    relay = await startDemoRelay();
    port = await listenLocal(relay.app);
  });
  after(() => relay.close());

  /** A request target of exactly `length` bytes on an unknown route. */
  const targetOf = (length: number) => {
    const prefix = '/nowhere?pad=';
    return prefix + 'a'.repeat(length - prefix.length);
  };

  it('answers a URI over 8 KiB, and one of 20 KiB, with 414 internal.uri_too_long', async () => {
    for (const length of [MAX_URI_BYTES + 1, 20 * 1024]) {
      const response = await rawRequest(port, targetOf(length));
      assertProblem(response, 414, 'internal.uri_too_long');
      assertSecurityHeaders(response);
    }
    const viaRoute = await rawRequest(port, `${HOUSEHOLDS}?district=${'w'.repeat(MAX_URI_BYTES)}`);
    assertProblem(viaRoute, 414, 'internal.uri_too_long');
    const records = relay.auditRecords().filter((record) => record.error_code === 'internal.uri_too_long');
    assert.equal(records.length, 3);
  });

  it('lets a URI of exactly 8 KiB through to routing', async () => {
    const response = await rawRequest(port, targetOf(MAX_URI_BYTES));
    assertProblem(response, 404, 'http.not_found');
  });

  it('takes long record ids to the route and refuses an overlong path segment with the 414 problem', async () => {
    const longId = await rawRequest(port, `${HOUSEHOLDS}/${'h'.repeat(300)}`, {
      headers: { authorization: 'Bearer test-key-caseworker-0000000000000001' },
    });
    assertProblem(longId, 404, 'schema.unknown_resource');
    const overlong = await rawRequest(port, `${HOUSEHOLDS}/${'h'.repeat(MAX_URI_BYTES + 10)}`);
    assertProblem(overlong, 414, 'internal.uri_too_long');
    assertSecurityHeaders(overlong);
  });

  it('answers a path that does not percent-decode with an audited 404 problem', async () => {
    const before = relay.auditRecords().length;
    const response = await rawRequest(port, '/v1/datasets/%E0%A4%A');
    const body = assertProblem(response, 404, 'http.not_found');
    assertSecurityHeaders(response);
    const records = relay.auditRecords();
    assert.equal(records.length, before + 1);
    assert.equal(records.at(-1)?.request_id, body.request_id);
    assert.equal(records.at(-1)?.error_code, 'http.not_found');
  });

  it('refuses two Data-Purpose headers on a rows read, even where no purpose is required', async () => {
    const headers = { authorization: 'Bearer test-key-caseworker-0000000000000001' };
    const repeated = await rawRequest(port, `${HOUSEHOLDS}?limit=1`, {
      headers: { ...headers, 'data-purpose': ['https://example.org/p/a', 'https://example.org/p/b'] },
    });
    assert.equal(
      assertProblem(repeated, 400, 'auth.purpose_required').detail,
      'send one Data-Purpose header',
    );
    const comma = await rawRequest(port, `${HOUSEHOLDS}?limit=1`, {
      headers: { ...headers, 'data-purpose': 'review, 2026' },
    });
    assert.equal(comma.statusCode, 200, comma.body);
    assert.equal(relay.auditRecords().at(-1)?.purpose, 'review, 2026');
  });

  it('refuses a query string that does not percent-decode, on every route, with an audited 400', async () => {
    const headers = { authorization: 'Bearer test-key-caseworker-0000000000000001' };
    const before = relay.auditRecords().length;
    const targets = [
      `${HOUSEHOLDS}?district=%C3`,
      `${HOUSEHOLDS}?district=%ZZ`,
      `${HOUSEHOLDS}?district=a%`,
      `${HOUSEHOLDS}?district=%ED%A0%80`,
      `${HOUSEHOLDS}?limit=1&cursor=%`,
      `${SCHEMA}?x=%E0%A4%A`,
      '/nowhere?q=%G0',
    ];
    for (const target of targets) {
      const response = await rawRequest(port, target, { headers });
      assertProblem(response, 400, 'http.invalid_query');
      assertSecurityHeaders(response);
    }
    assert.equal(relay.auditRecords().length, before + targets.length);
    // Escapes that decode are read as their text.
    const decoded = await rawRequest(port, `${HOUSEHOLDS}?district=%6Cakeside&limit=1`, { headers });
    assert.equal(decoded.statusCode, 200, decoded.body);
    assert.equal(JSON.parse(decoded.body).data[0].district, 'lakeside');
  });
});

describe('requests the HTTP parser refuses', () => {
  const app = bareApp();
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { slow: true };
  });
  let port = 0;
  before(async () => {
    port = await listenLocal(app);
  });
  after(() => app.close());

  /** Each request, sent as raw bytes, gets its problem with the usual headers, and its connection closes. */
  const assertRawProblems = async (cases: readonly (readonly [string, number, string])[]) => {
    for (const [bytes, status, code] of cases) {
      const response = await sendRaw(port, bytes);
      const body = assertProblem(response, status, code);
      assertSecurityHeaders(response);
      assert.equal(response.headers['x-request-id'], body.request_id);
      assert.equal(response.headers.connection, 'close');
    }
  };

  it('answers them with problems, not a bare JSON error', async () => {
    const cases = [
      ['GET /x HTTP/1.1\r\nhost: a\r\nx-request-id: a\x7fb\r\n\r\n', 400, 'http.malformed_request'],
      ['NOT HTTP AT ALL\r\n\r\n', 400, 'http.malformed_request'],
      [
        `GET /x HTTP/1.1\r\nhost: a\r\nx-pad: ${'p'.repeat(70 * 1024)}\r\n\r\n`,
        431,
        'http.headers_too_large',
      ],
    ] as const;
    await assertRawProblems(cases);
  });

  it('answers what Node would answer bare (no Host, an unknown Expect, CONNECT) with problems', async () => {
    const cases = [
      ['GET /x HTTP/1.1\r\n\r\n', 400, 'http.malformed_request'],
      ['GET /x HTTP/1.1\r\nhost: a\r\nexpect: 200-ok\r\n\r\n', 417, 'http.expectation_failed'],
      ['CONNECT example.org:443 HTTP/1.1\r\nhost: example.org:443\r\n\r\n', 404, 'http.not_found'],
    ] as const;
    await assertRawProblems(cases);
    // HTTP/1.0 has no Host requirement: the request is routed (to a 404 here, as any unknown path).
    const old = await sendRaw(port, 'GET /x HTTP/1.0\r\n\r\n');
    assertProblem(old, 404, 'http.not_found');
  });

  it('answers the requests pipelined ahead of a refused one first', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(
          'GET /slow HTTP/1.1\r\nhost: a\r\n\r\nGET /x HTTP/1.1\r\nhost: a\r\nx-bad: a\x7fb\r\n\r\n',
          'latin1',
        ),
      );
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
    });
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
    assert.deepEqual(statuses, [200, 400]);
    assert.match(text, /\{"slow":true\}/);
    assert.match(text, /http\.malformed_request/);
  });
});

describe('headers that never finish', () => {
  // The header deadline is the request timeout (at most 10 s); Node checks it every second.
  const app = bareApp(300);
  let port = 0;
  before(async () => {
    port = await listenLocal(app);
  });
  after(() => app.close());

  it('answers 504 internal.timeout and closes the connection within the request timeout', async () => {
    const started = performance.now();
    const response = await sendRaw(port, 'GET /x HTTP/1.1\r\nhost: a\r\nx-slow: ');
    const body = assertProblem(response, 504, 'internal.timeout');
    assert.equal(response.headers['x-request-id'], body.request_id);
    // Node's own deadline (60 s, checked every 30 s) would hold it far longer.
    assert.ok(performance.now() - started < 5_000);
  });
});

describe('request timeout', () => {
  const app = bareApp(50);
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  app.get('/slow', async () => {
    await released;
    return { late: true };
  });
  app.get('/fast', async () => ({ fast: true }));
  after(() => app.close());

  it('answers 504 internal.timeout when the handler is still running, and nothing twice', async () => {
    const slow = await app.inject({ method: 'GET', url: '/slow' });
    assertProblem(slow, 504, 'internal.timeout');
    assertSecurityHeaders(slow);
    release();
    await released;
    const fast = await app.inject({ method: 'GET', url: '/fast' });
    assert.equal(fast.statusCode, 200);
    assert.deepEqual(fast.json(), { fast: true });
    assert.match(String(fast.headers['x-request-id']), ULID_PATTERN);
  });
});

describe('a time-out while a response is being committed', () => {
  // The commit (the audit write) takes longer than the request time-out: the first response to enter it is the
  // one the client gets, and the other is dropped, never written over it (that crashed the process).
  const app = bareApp(100, { commitResponse: (_request, _reply, done) => setTimeout(() => done(), 250) });
  const replaced: string[] = [];
  const answerAfter = (path: string, ms: number) =>
    app.get(path, async (request, reply) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      request.ctx.onReplaced = () => replaced.push(path);
      return reply.send({ path });
    });
  answerAfter('/just-in-time', 60);
  answerAfter('/too-late', 300);
  let port = 0;
  before(async () => {
    port = await listenLocal(app);
  });
  after(() => app.close());

  it('sends the response that entered first, once, and tells the route when its own was dropped', async () => {
    const inTime = await rawRequest(port, '/just-in-time');
    assert.equal(inTime.statusCode, 200, inTime.body);
    assert.deepEqual(JSON.parse(inTime.body), { path: '/just-in-time' });
    const late = await rawRequest(port, '/too-late');
    assertProblem(late, 504, 'internal.timeout');
    // The late handler's answer reaches the pipeline after the 504 did: dropped, and its route told.
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(replaced, ['/too-late']);
    const again = await rawRequest(port, '/just-in-time');
    assert.equal(again.statusCode, 200, 'the server still answers');
  });
});

describe('error boundary', () => {
  const lines: string[] = [];
  const app = bareApp(5_000, {
    logger: createLogger({
      name: 'http-limits-test',
      level: 'error',
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    }),
  });
  app.get('/boom', async () => {
    throw new Error('db password=hunter2 at /srv/registry/secret.db');
  });
  app.get('/teapot', async () => {
    // A status code on a foreign error is not trusted: it is still an internal failure.
    throw Object.assign(new TypeError('upstream said 418'), { statusCode: 418 });
  });
  after(() => app.close());

  it('turns a thrown non-Problem error into a generic 500 internal.unhandled and logs the cause', async () => {
    for (const url of ['/boom', '/teapot']) {
      const response = await app.inject({ method: 'GET', url });
      const body = assertProblem(response, 500, 'internal.unhandled');
      assertSecurityHeaders(response);
      assert.equal(body.detail, 'An internal error occurred.');
      assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'request_id', 'status', 'title', 'type']);
      for (const leak of ['hunter2', '/srv/registry', 'upstream said', 'Error', 'stack', '    at ']) {
        assert.ok(!response.body.includes(leak), `${url} leaks ${leak}`);
      }
      const logged = lines
        .map((line) => JSON.parse(line))
        .find((entry) => entry.request_id === body.request_id);
      assert.ok(logged, 'the cause is logged with the request id');
    }
    assert.ok(
      lines.some((line) => line.includes('hunter2')),
      'the server log keeps the real message',
    );
  });
});

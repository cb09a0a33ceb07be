// The fast lane must be invisible to clients: every request it serves gets the answer Fastify would give (status,
// headers, body, audit record), and every request it does not claim reaches Fastify unchanged.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Response } from 'light-my-request';
import { verifyAuditChain } from '../../src/platform/audit/audit-envelope.ts';
import { recordingLogger } from '../../src/platform/audit/audit-test-support.ts';
import { addGetRoute, addJsonPostRoute } from '../../src/platform/http/fast-lane.ts';
import type { RouteReply } from '../../src/platform/http/route-types.ts';
import { bareApp, listenLocal } from '../helpers/http-checks.ts';
import { injectThroughLane } from '../helpers/inject-through-lane.ts';
import {
  AUDIT_SECRET,
  PURPOSE,
  startDemoRelay,
  TEST_KEYS,
  type TestRelay,
} from '../helpers/relay-harness.ts';

const CASEWORKER = `Bearer ${TEST_KEYS.caseworker}`;
const ANALYST = `Bearer ${TEST_KEYS.analyst}`;
const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';
const PERSONS = '/v1/datasets/civil_registry/entities/persons/records';

/** Headers that legitimately differ between two answers to the same request. */
const PER_RESPONSE = new Set(['x-request-id', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

function comparable(response: Response) {
  const headers = Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => !PER_RESPONSE.has(name.toLowerCase())),
  );
  const requestId = String(response.headers['x-request-id']);
  return { status: response.statusCode, headers, body: response.body.replaceAll(requestId, '<id>') };
}

describe('fast lane', () => {
  let relay: TestRelay;
  let laneResponses = 0;

  before(async () => {
    relay = await startDemoRelay();
    relay.app.fastLane?.onResponse(() => {
      laneResponses++;
    });
  });
  after(() => relay.close());

  // The status each answer must have: two answers that are the same failure would otherwise pass.
  const cases: [string, string, Record<string, string>, number][] = [
    ['a filtered read', `${HOUSEHOLDS}?district=willowbank`, { authorization: CASEWORKER }, 200],
    ['a first page with a next link', `${HOUSEHOLDS}?limit=2`, { authorization: CASEWORKER }, 200],
    ['a record by id', `${HOUSEHOLDS}/hh-1033`, { authorization: CASEWORKER }, 200],
    ['an unknown record', `${HOUSEHOLDS}/hh-nope`, { authorization: CASEWORKER }, 404],
    [
      'a projection and an expansion',
      `${HOUSEHOLDS}/hh-1033?fields=household_id`,
      { authorization: CASEWORKER },
      200,
    ],
    // The router matches `records/` as a record read with an empty id, on both paths.
    ['a trailing slash', `${HOUSEHOLDS}/`, { authorization: CASEWORKER }, 404],
    ['no credential', HOUSEHOLDS, {}, 401],
    ['an unknown key', HOUSEHOLDS, { authorization: 'Bearer not-a-key-0000000000000000000' }, 401],
    ['a dataset outside the scopes', PERSONS, { authorization: ANALYST }, 403],
    [
      'an unknown entity',
      '/v1/datasets/social_protection/entities/nope/records',
      { authorization: CASEWORKER },
      404,
    ],
    ['a bad filter value', `${HOUSEHOLDS}?limit=abc`, { authorization: CASEWORKER }, 400],
    ['a filter on an undeclared field', `${HOUSEHOLDS}?nope=1`, { authorization: CASEWORKER }, 400],
    ['a malformed cursor', `${HOUSEHOLDS}?cursor=AAAA`, { authorization: CASEWORKER }, 400],
    ['a required purpose missing', `${PERSONS}?person_id=per-10001`, { authorization: CASEWORKER }, 400],
    [
      'a purpose given',
      `${PERSONS}?person_id=per-10001`,
      { authorization: CASEWORKER, 'data-purpose': PURPOSE },
      200,
    ],
    [
      'a CORS origin that is not allowed',
      HOUSEHOLDS,
      { authorization: CASEWORKER, origin: 'https://evil.example' },
      200,
    ],
    [
      'an aggregate',
      '/v1/datasets/social_protection/aggregates/households_by_district',
      { authorization: ANALYST },
      200,
    ],
    [
      'an aggregate as CSV',
      '/v1/datasets/social_protection/aggregates/households_by_district?f=csv',
      { authorization: ANALYST },
      200,
    ],
    ['a metadata document', '/metadata/catalog', { authorization: CASEWORKER }, 200],
    ['the API catalog', '/.well-known/api-catalog', {}, 200],
  ];

  for (const [name, url, headers, status] of cases) {
    test(`${name}: the same answer and audit record as through Fastify`, async () => {
      const before = laneResponses;
      const viaFastify = await relay.app.inject({ method: 'GET', url, headers });
      assert.equal(viaFastify.statusCode, status, viaFastify.body);
      const fastifyRecord = relay.auditRecords().at(-1);
      const viaLane = await injectThroughLane(relay.app, { method: 'GET', url, headers });
      const laneRecord = relay.auditRecords().at(-1);
      assert.equal(laneResponses, before + 1, 'the lane served the second request');
      assert.deepEqual(comparable(viaLane), comparable(viaFastify));
      const strip = (record: Record<string, unknown> | undefined) => {
        assert.ok(record, 'an audit record was written');
        const { ts: _ts, request_id: _id, duration_ms: _duration, ...rest } = record;
        return rest;
      };
      assert.notEqual(laneRecord?.request_id, fastifyRecord?.request_id);
      assert.deepEqual(strip(laneRecord), strip(fastifyRecord));
    });
  }

  test('a 304 from the lane carries the validator and no body', async () => {
    const first = await injectThroughLane(relay.app, {
      method: 'GET',
      url: `${HOUSEHOLDS}?district=willowbank`,
      headers: { authorization: CASEWORKER },
    });
    const etag = String(first.headers.etag);
    const again = await injectThroughLane(relay.app, {
      method: 'GET',
      url: `${HOUSEHOLDS}?district=willowbank`,
      headers: { authorization: CASEWORKER, 'if-none-match': etag },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.headers.etag, etag);
    assert.equal(again.body, '');
    assert.equal(again.headers['content-length'], undefined);
    assert.equal(again.headers['x-content-type-options'], 'nosniff');
  });

  const unclaimed: [string, Parameters<typeof injectThroughLane>[1]][] = [
    ['HEAD', { method: 'HEAD', url: HOUSEHOLDS, headers: { authorization: CASEWORKER } }],
    [
      'bad percent-encoding',
      { method: 'GET', url: `${HOUSEHOLDS}/%zz`, headers: { authorization: CASEWORKER } },
    ],
    ['a route the lane does not carry', { method: 'GET', url: '/healthz' }],
    ['an unknown path', { method: 'GET', url: '/v1/nope' }],
    [
      'an overlong record id',
      { method: 'GET', url: `${HOUSEHOLDS}/${'x'.repeat(9000)}`, headers: { authorization: CASEWORKER } },
    ],
  ];
  for (const [name, options] of unclaimed) {
    test(`${name}: left to Fastify, with the same answer`, async () => {
      const before = laneResponses;
      const viaLane = await injectThroughLane(relay.app, options);
      assert.equal(laneResponses, before, 'the lane did not serve it');
      const viaFastify = await relay.app.inject(options);
      assert.deepEqual(comparable(viaLane), comparable(viaFastify));
    });
  }
});

describe('audit group commit', () => {
  test('concurrent answers are each audited once, in one valid chain', async () => {
    const relay = await startDemoRelay();
    try {
      const urls = Array.from({ length: 24 }, (_, i) => `${HOUSEHOLDS}?limit=${(i % 5) + 1}`);
      const responses = await Promise.all(
        urls.map((url) =>
          injectThroughLane(relay.app, { method: 'GET', url, headers: { authorization: CASEWORKER } }),
        ),
      );
      const ids = responses.map((response) => {
        assert.equal(response.statusCode, 200);
        return String(response.headers['x-request-id']);
      });
      const lines = readFileSync(relay.auditPath, 'utf8').trim().split('\n');
      const audited = lines.map((line) => JSON.parse(line).record.request_id as string);
      assert.deepEqual([...audited].sort(), [...ids].sort());
      const chain = verifyAuditChain(lines, Buffer.from(AUDIT_SECRET), null);
      assert.deepEqual(chain, {
        ok: true,
        count: 24,
        lastHash: JSON.parse(lines.at(-1) as string).record_hash,
        firstPrevHash: null,
      });
    } finally {
      await relay.close();
    }
  });
});

describe('fast lane time-out', () => {
  test('a lane handler still running at the time-out gets 504 internal.timeout, and its late answer is dropped', async () => {
    const app = bareApp(50);
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let lateSend: RouteReply | undefined;
    addGetRoute(app, '/slow/:id', async (_request, reply) => {
      await released;
      lateSend = reply.send('late');
    });
    let served = 0;
    app.fastLane?.onResponse(() => {
      served++;
    });
    try {
      const slow = await injectThroughLane(app, { method: 'GET', url: '/slow/1' });
      assert.equal(served, 1);
      assert.equal(slow.statusCode, 504);
      assert.equal(slow.json().code, 'internal.timeout');
      assert.equal(slow.headers['x-content-type-options'], 'nosniff');
      release();
      await released;
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(lateSend?.sent, 'the handler finished');
      assert.equal(served, 1, 'nothing was written twice');
    } finally {
      await app.close();
    }
  });
});

describe('fast lane JSON POST routes', () => {
  const echoApp = (requestTimeoutMs = 5000) => {
    const app = bareApp(requestTimeoutMs);
    let handled = 0;
    addJsonPostRoute(
      app,
      '/echo/:id',
      async (request, reply) => {
        handled++;
        return (
          reply
            .header('content-type', 'application/json')
            // A Buffer, as the services send: Fastify would append a charset to a string body.
            .send(
              Buffer.from(JSON.stringify({ id: (request.params as { id: string }).id, body: request.body })),
            )
        );
      },
      { bodyLimit: 64 },
    );
    let served = 0;
    app.fastLane?.onResponse(() => {
      served++;
    });
    return { app, served: () => served, handled: () => handled };
  };

  // Whether the lane claims the request, and the status both answers must have.
  const cases: [string, Parameters<typeof injectThroughLane>[1], boolean, number][] = [
    ['a JSON body', { payload: '{"a":[1,"é"]}', headers: { 'content-type': 'application/json' } }, true, 200],
    [
      'a JSON body with charset=utf-8',
      { payload: '{"a":1}', headers: { 'content-type': 'application/json; charset=UTF-8' } },
      true,
      200,
    ],
    ['invalid JSON', { payload: '{"a":', headers: { 'content-type': 'application/json' } }, true, 400],
    [
      'prototype poisoning',
      { payload: '{"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } },
      true,
      400,
    ],
    ['an empty body', { payload: '', headers: { 'content-type': 'application/json' } }, false, 400],
    [
      'a body over the route limit',
      { payload: `{"a":"${'x'.repeat(80)}"}`, headers: { 'content-type': 'application/json' } },
      false,
      413,
    ],
    ['another media type', { payload: '<a/>', headers: { 'content-type': 'application/xml' } }, false, 415],
    [
      'a media type with a space inside it',
      { payload: '{}', headers: { 'content-type': 'app lication/json' } },
      false,
      415,
    ],
    [
      'charset without a space',
      { payload: '{"a":1}', headers: { 'content-type': 'application/json;charset=utf-8' } },
      true,
      200,
    ],
    [
      'a media type parameter',
      { payload: '{}', headers: { 'content-type': 'application/json; v=2' } },
      false,
      200,
    ],
  ];
  for (const [name, options, claimed, status] of cases) {
    test(`${name}: ${claimed ? 'served by the lane' : 'left to Fastify'}, with the same answer`, async () => {
      const { app, served } = echoApp();
      try {
        const request = { method: 'POST' as const, url: '/echo/7', ...options };
        const viaLane = await injectThroughLane(app, request);
        assert.equal(served(), claimed ? 1 : 0);
        const viaFastify = await app.inject(request);
        assert.equal(viaFastify.statusCode, status, viaFastify.body);
        assert.deepEqual(comparable(viaLane), comparable(viaFastify));
      } finally {
        await app.close();
      }
    });
  }

  test('a body that stops arriving gets 504 internal.timeout; arriving later, it runs nothing', async () => {
    const { app, handled } = echoApp(50);
    const port = await listenLocal(app);
    try {
      const socket = connect(port, '127.0.0.1');
      socket.write(
        'POST /echo/1 HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"a":',
      );
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString();
          if (text.includes('\r\n\r\n') && text.includes('}')) resolve(text);
        });
      });
      assert.match(answer, /^HTTP\/1\.1 504/);
      assert.match(answer, /internal\.timeout/);
      // The rest of the body (40 bytes in all) comes after the answer: the handler must not run for it.
      socket.write(`"${'x'.repeat(32)}"}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      assert.equal(handled(), 0);
    } finally {
      await app.close();
    }
  });
});

describe('aborted request bodies', () => {
  test('a client that goes away mid-body on a Fastify-served POST is its mistake, not an error of ours', async () => {
    const { logger, calls } = recordingLogger();
    const app = bareApp(5_000, { logger });
    let handled = 0;
    // A chunked body is left to Fastify's body reader.
    addJsonPostRoute(
      app,
      '/echo/:id',
      async (_request, reply) => {
        handled++;
        return reply.send(Buffer.from('{"ok":true}'));
      },
      { bodyLimit: 64 },
    );
    let reachedErrorHandler: () => void = () => {};
    const errored = new Promise<void>((resolve) => {
      reachedErrorHandler = resolve;
    });
    app.addHook('onError', (_request, _reply, _error, done) => {
      reachedErrorHandler();
      done();
    });
    const port = await listenLocal(app);
    try {
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        'POST /echo/1 HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n6\r\n{"a":1\r\n',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await errored;
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(handled, 0);
      assert.deepEqual(
        calls.filter((call) => call.level === 'error'),
        [],
        'nothing logged as an error of the service',
      );
    } finally {
      await app.close();
    }
  });
});

// Request time-outs: headers that never finish, a handler still running, a response being committed.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  assertProblem,
  assertSecurityHeaders,
  bareApp,
  rawRequest,
  sendRaw,
  ULID_PATTERN,
} from '../helpers/http-checks.ts';
import { useListening } from './http-limits-fixture.ts';

describe('headers that never finish', () => {
  // The header deadline is the request timeout (at most 10 s); Node checks it every second.
  const app = bareApp(300);
  const server = useListening(app);

  it('answers 504 internal.timeout and closes the connection within the request timeout', {
    timeout: 20_000,
  }, async () => {
    const { port } = server;
    const response = await sendRaw(port, 'GET /x HTTP/1.1\r\nhost: a\r\nx-slow: ');
    // Node's own deadline (60 s, checked every 30 s, past this test's time limit) would answer a bare 408.
    const body = assertProblem(response, 504, 'internal.timeout');
    assert.equal(response.headers['x-request-id'], body.request_id);
  });
});

describe("a request timeout longer than Node's own", () => {
  const app = bareApp(600_000);
  const server = useListening(app);

  it('leaves the request to its own deadline: Node never cuts a slow body first with a bare 408', () => {
    assert.ok(server.port > 0);
    assert.ok(app.server.requestTimeout > 600_000, String(app.server.requestTimeout));
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
      request.ctx.onReplaced = () => {
        replaced.push(path);
      };
      return reply.send({ path });
    });
  answerAfter('/just-in-time', 60);
  answerAfter('/too-late', 300);
  const server = useListening(app);

  it('sends the response that entered first, once, and tells the route when its own was dropped', async () => {
    const { port } = server;
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

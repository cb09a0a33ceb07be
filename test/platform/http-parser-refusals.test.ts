// Requests the HTTP parser refuses, answered with problems after the requests pipelined ahead of them.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { assertProblem, assertSecurityHeaders, bareApp, sendRaw } from '../helpers/http-checks.ts';
import { useListening } from './http-limits-fixture.ts';

describe('requests the HTTP parser refuses', () => {
  const app = bareApp();
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { slow: true };
  });
  app.post('/echo', async (request) => request.body);
  const server = useListening(app);

  /** Each request, sent as raw bytes, gets its problem with the usual headers, and its connection closes. */
  const assertRawProblems = async (cases: readonly (readonly [string, number, string])[]) => {
    const { port } = server;
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
    const { port } = server;
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

  it('refuses a transfer coding it does not decode, rather than reading the coded bytes as the body', async () => {
    // Node decodes only `chunked`: a gzip-coded body would reach the route still compressed, or be taken as sent.
    const post = (codings: string, chunk: string) =>
      'POST /echo HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\n' +
      `transfer-encoding: ${codings}\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`;
    await assertRawProblems([
      [post('gzip, chunked', '{"a":1}'), 400, 'http.malformed_request'],
      [post('identity, chunked', '{"a":1}'), 400, 'http.malformed_request'],
      [post('x-custom,chunked', '{"a":1}'), 400, 'http.malformed_request'],
      // RFC 9112 §6.1: HTTP/1.0 has no chunked framing, so a proxy in front may have framed this body otherwise.
      [
        `${post('chunked', '{"a":1}').replace('HTTP/1.1', 'HTTP/1.0')}GET /slow HTTP/1.0\r\n\r\n`.replace(
          'host: a',
          'connection: keep-alive',
        ),
        400,
        'http.malformed_request',
      ],
    ]);
    const plain = await sendRaw(
      server.port,
      `${post('Chunked', '{"a":1}')}`.replace('host: a', 'host: a\r\nconnection: close'),
    );
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, '{"a":1}');
  });

  it('refuses more header lines than it reads, rather than dropping those past the limit', async () => {
    const lines = (count: number) => Array.from({ length: count }, (_, i) => `x-f${i}: 1\r\n`).join('');
    // A second Host line (or a proxy's own X-Forwarded-For line) after the first 2,000 must not go unseen.
    await assertRawProblems([
      [`GET /slow HTTP/1.1\r\nhost: a\r\n${lines(1999)}host: b\r\n\r\n`, 431, 'http.headers_too_large'],
      [`GET /slow HTTP/1.1\r\nhost: a\r\n${lines(5000)}\r\n`, 431, 'http.headers_too_large'],
    ]);
    const within = await sendRaw(
      server.port,
      `GET /slow HTTP/1.1\r\nhost: a\r\nconnection: close\r\n${lines(1998)}\r\n`,
    );
    assert.equal(within.statusCode, 200);
  });

  /** Everything the connection answered to `bytes` until it closed, and the statuses of its answers in order. */
  const pipelined = (bytes: string) =>
    new Promise<{ text: string; statuses: number[] }>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(server.port, '127.0.0.1', () => socket.write(bytes, 'latin1'));
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString();
        const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
        resolve({ text, statuses });
      });
    });

  it('answers the requests pipelined ahead of a refused one first', async () => {
    const { text, statuses } = await pipelined(
      'GET /slow HTTP/1.1\r\nhost: a\r\n\r\nGET /x HTTP/1.1\r\nhost: a\r\nx-bad: a\x7fb\r\n\r\n',
    );
    assert.deepEqual(statuses, [200, 400]);
    assert.match(text, /\{"slow":true\}/);
    assert.match(text, /http\.malformed_request/);
  });

  it('answers a request whose transfer coding does not end in chunked once, not a second time for its body', async () => {
    // Refused from its headers, before the parser finds that its body has no framing: one request, one answer.
    for (const codings of ['gzip', 'banana']) {
      const { text, statuses } = await pipelined(
        `POST /echo HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\ntransfer-encoding: ${codings}\r\n\r\n{}`,
      );
      assert.deepEqual(statuses, [400], codings);
      assert.match(text, /send the body uncompressed/);
    }
  });

  it('answers a request ahead of one whose body breaks off malformed before the refusal', async () => {
    const { text, statuses } = await pipelined(
      'GET /slow HTTP/1.1\r\nhost: a\r\n\r\n' +
        'POST /echo HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\n' +
        'transfer-encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n',
    );
    // The first answer on the connection is the first request's: a client pairs answers with requests in order.
    assert.deepEqual(statuses, [200, 400]);
    assert.match(text, /\{"slow":true\}/);
    assert.match(text, /http\.malformed_request/);
  });
});

// Request bodies on the admin listener: at most 4 KiB on every route, GETs included, checked after the credential,
// and a larger body is refused without being read.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { listenLocal } from '../helpers/http-checks.ts';
import { assertProblem } from './assert-problem.ts';
import {
  closeHarness,
  type Harness,
  RELOAD_KEYS,
  type ReloadPersona,
  startHarness,
} from './reload-fixture.ts';

const BIG = 'x'.repeat(64 * 1024);

/** Writes `bytes` on a new connection and reads everything the server sends until it closes the connection. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setTimeout(5_000, () => socket.destroy(new Error('the server kept the connection open')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

describe('admin listener request bodies', () => {
  let h: Harness;
  let port = 0;
  const as = (persona: ReloadPersona) => ({ authorization: `Bearer ${RELOAD_KEYS[persona]}` });
  const get = (url: string, headers: Record<string, string>, payload?: string) =>
    h.admin.inject({ method: 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
  before(async () => {
    h = await startHarness();
    port = await listenLocal(h.admin);
  });
  after(() => closeHarness(h));

  it('refuses a GET /metrics with a 64 KiB body with 413 internal.payload_too_large', async () => {
    const response = await get('/metrics', as('operator'), BIG);
    assertProblem(response, 413, 'internal.payload_too_large');
    assert.equal(response.headers.connection, 'close');
  });

  it('holds every admin GET, authenticated or not, to the same limit', async () => {
    for (const url of ['/admin/v1/capabilities', '/admin/v1/posture', '/healthz', '/ready']) {
      assertProblem(await get(url, as('operator'), BIG), 413, 'internal.payload_too_large');
    }
  });

  it('still answers a GET with a small body, or none', async () => {
    for (const payload of [undefined, '', 'x'.repeat(4096)]) {
      const response = await get('/metrics', as('operator'), payload);
      assert.equal(response.statusCode, 200, `${payload?.length} bytes: ${response.body.slice(0, 200)}`);
    }
  });

  it('checks the credential and the scope before the body', async () => {
    assertProblem(await get('/metrics', {}, BIG), 401, 'auth.missing_credential');
    assertProblem(await get('/metrics', as('ops_only'), BIG), 403, 'auth.scope_denied');
    assertProblem(await get('/metrics', {}, 'x'), 401, 'auth.missing_credential');
  });

  it('answers a declared 64 MiB body at once and closes the connection without reading it', async () => {
    const head = `GET /metrics HTTP/1.1\r\nhost: a\r\nauthorization: Bearer ${RELOAD_KEYS.operator}\r\n`;
    const text = await exchange(
      port,
      `${head}content-length: ${64 * 1024 * 1024}\r\n\r\n${'x'.repeat(1000)}`,
    );
    assert.match(text, /^HTTP\/1\.1 413 /);
    assert.match(text, /\r\nconnection: close\r\n/i);
    assert.match(text, /"code":"internal\.payload_too_large"/);
  });

  it('reads a chunked GET body only up to the limit', async () => {
    const head = (connection: string) =>
      `GET /metrics HTTP/1.1\r\nhost: a\r\nconnection: ${connection}\r\nauthorization: Bearer ${RELOAD_KEYS.operator}\r\ntransfer-encoding: chunked\r\n\r\n`;
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    // Over the limit and never finished: the answer does not wait for the rest.
    const over = await exchange(port, head('keep-alive') + chunk('x'.repeat(5000)));
    assert.match(over, /^HTTP\/1\.1 413 /);
    assert.match(over, /"code":"internal\.payload_too_large"/);
    const within = await exchange(port, `${head('close')}${chunk('x'.repeat(100))}0\r\n\r\n`);
    assert.match(within, /^HTTP\/1\.1 200 /);
  });

  it('answers a POST reload without a credential 401 before its body, never asking for it', async () => {
    for (const path of ['/admin/v1/reload', '/admin/v1/datasets/people/tables/people_table/reload']) {
      const head = `POST ${path} HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\n`;
      const text = await exchange(port, `${head}content-length: 2\r\nexpect: 100-continue\r\n\r\n`);
      assert.match(text, /^HTTP\/1\.1 401 /, text.slice(0, 200));
      assert.match(text, /"code":"auth\.missing_credential"/);
      const large = await h.admin.inject({ method: 'POST', url: path, payload: BIG });
      assertProblem(large, 401, 'auth.missing_credential');
    }
  });

  it('refuses a POST reload body over the limit without reading it either', async () => {
    const head = `POST /admin/v1/reload HTTP/1.1\r\nhost: a\r\nauthorization: Bearer ${RELOAD_KEYS.operator}\r\n`;
    const text = await exchange(port, `${head}content-length: ${64 * 1024 * 1024}\r\n\r\n`);
    assert.match(text, /^HTTP\/1\.1 413 /);
    assert.match(text, /\r\nconnection: close\r\n/i);
  });
});

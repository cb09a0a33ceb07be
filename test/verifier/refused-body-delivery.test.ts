// A body refused before it is read in full (413) gets its answer over a real socket even while the client is still
// sending the rest: the connection is not reset under a client that has not read the answer yet (its write would
// fail and take the unread answer with it). A client that never stops sending is cut in the end.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';

const CHUNK = Buffer.alloc(64 * 1024, 0x20);

function head(framing: string): string {
  return (
    'POST /v1/evaluations HTTP/1.1\r\nhost: v\r\ncontent-type: application/json\r\n' +
    `x-api-key: ${CALLER_KEYS.full}\r\ndata-purpose: ${EVIDENCE_PURPOSE}\r\n${framing}\r\n\r\n`
  );
}

function writeChunk(socket: Socket, chunked: boolean): Promise<boolean> {
  const bytes = chunked
    ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')])
    : CHUNK;
  return new Promise((resolve) => socket.write(bytes, (error) => resolve(error == null)));
}

/**
 * Sends the head and `bytes` of body without reading anything meanwhile (as a client busy uploading does), then
 * reads: what arrived before the connection closed, and whether every write went through.
 */
async function uploadThenRead(port: number, framing: string, bytes: number) {
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(head(framing));
  let written = true;
  for (let sent = 0; sent < bytes && written; sent += CHUNK.length) {
    written = await writeChunk(socket, framing.startsWith('transfer-encoding'));
  }
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.resume();
  await new Promise((resolve) => socket.once('close', resolve));
  return { text: Buffer.concat(chunks).toString('latin1'), written };
}

describe('a request body over the limit, sent on regardless', () => {
  let verifier: TestVerifier;
  let port = 0;
  before(async () => {
    verifier = await startTestVerifier();
    await verifier.verifier.app.listen({ host: '127.0.0.1', port: 0 });
    port = (verifier.verifier.app.server.address() as AddressInfo).port;
  });
  after(() => verifier.close());

  for (const framing of [`content-length: ${64 * 1024 * 1024}`, 'transfer-encoding: chunked']) {
    it(`is answered 413 even though the client reads only after sending more (${framing.split(':')[0]})`, async () => {
      const { text, written } = await uploadThenRead(port, framing, 8 * 1024 * 1024);
      assert.match(text, /^HTTP\/1\.1 413 /);
      assert.match(text, /"code":"internal\.payload_too_large"/);
      assert.match(text, /\r\nconnection: close\r\n/i);
      assert.ok(written, 'the connection was reset under the client');
    });
  }

  it('is cut in the end when the client never stops sending', async () => {
    // Ignores the end of the server's side (as a client busy uploading may) and sends on.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => {});
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(head(`content-length: ${1024 * 1024 * 1024}`));
    let open = true;
    void closed.then(() => {
      open = false;
    });
    // Far longer than the service lingers; the test's own limit stops a connection kept open for good.
    let gaveUp = false;
    const giveUp = setTimeout(() => {
      gaveUp = true;
      socket.destroy();
    }, 60_000);
    while (open && !socket.destroyed) {
      await writeChunk(socket, false);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    clearTimeout(giveUp);
    assert.match(received, /^HTTP\/1\.1 413 /);
    assert.equal(gaveUp, false, 'the connection stayed open while the client sent');
  });
});

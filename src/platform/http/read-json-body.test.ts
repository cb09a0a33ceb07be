import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { Problem } from '../problem/problem.ts';
import { readJsonBody } from './read-json-body.ts';

/** A request body stream: readJsonBody only listens for its events. */
function bodyStream(): PassThrough & IncomingMessage {
  return new PassThrough() as PassThrough & IncomingMessage;
}

function read(raw: IncomingMessage, length: number): Promise<{ problem?: Problem; body?: unknown }> {
  return new Promise((resolve) => {
    readJsonBody(raw, length, (problem, body) => resolve(problem === undefined ? { body } : { problem }));
  });
}

describe('readJsonBody', () => {
  it('reads a character whose bytes arrive in two chunks', async () => {
    const bytes = Buffer.from('{"name":"José"}');
    const raw = bodyStream();
    const result = read(raw, bytes.length);
    const split = bytes.indexOf(0xc3) + 1;
    raw.write(bytes.subarray(0, split));
    raw.end(bytes.subarray(split));
    assert.deepEqual(await result, { body: { name: 'José' } });
  });

  it('reads a body far larger than its first chunk, arriving in many', async () => {
    const text = JSON.stringify({
      rows: Array.from({ length: 5000 }, (_, i) => ({ i, name: `row ${i} é` })),
    });
    const bytes = Buffer.from(text);
    const raw = bodyStream();
    const result = read(raw, bytes.length);
    for (let at = 0; at < bytes.length; at += 1000) raw.write(bytes.subarray(at, at + 1000));
    raw.end();
    assert.deepEqual(await result, { body: JSON.parse(text) });
  });

  it('refuses a body shorter than its declared length', async () => {
    const raw = bodyStream();
    const result = read(raw, 10);
    raw.end('{}');
    assert.equal((await result).problem?.code, 'http.invalid_body');
  });

  it('holds memory for the bytes received, not for the length a request declares', () => {
    const declared = 1024 * 1024;
    const streams: PassThrough[] = [];
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 64; i++) {
      const raw = bodyStream();
      readJsonBody(raw, declared, () => {});
      raw.write('{');
      streams.push(raw);
    }
    const grown = process.memoryUsage().arrayBuffers - before;
    // 64 requests declaring 1 MiB each and sending one byte: nowhere near 64 MiB.
    assert.ok(grown < 8 * 1024 * 1024, `${grown} bytes held for ${streams.length} one-byte bodies`);
    for (const raw of streams) raw.destroy();
  });
});

// A client that closes its connection before its answer ends its request: the evaluation stops holding what it
// holds (its CEL worker), stores nothing, and its audit record says the client went away.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { VerifierRuntime } from '../../src/verifier/verifier-runtime.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import {
  auditOfRequest,
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';
import { until } from '../helpers/wait-until.ts';

// Six nested comprehensions over 30 numbers: minutes of work, stopped only by the time limit or its request.
const LIST = `[${Array.from({ length: 30 }, (_, i) => i).join(', ')}]`;
const SPIN = `${LIST}.all(a, ${LIST}.all(b, ${LIST}.all(c, ${LIST}.all(d, ${LIST}.all(e, ${LIST}.all(f, a + b + c + d + e + f >= 0))))))`;
const SPIN_CLAIMS = `
    - id: spin
      title: Runs long
      version: "1"
      subject_type: person
      value: { type: boolean }
      rule: { type: cel, expression: "${SPIN}" }
      disclosure: { default: predicate, allowed: [predicate] }

    - id: alive_record
      title: Has a record, no rule to run
      version: "1"
      subject_type: person
      value: { type: boolean }
      source_bindings:
        person:
          connector: registry_data_api
          connection: relay_civil
          required_scope: civil:evidence
          dataset: civil_registry
          entity: persons
          lookup: { input: target.identifiers.national_id, field: national_id }
          fields: [deceased]
      rule: { type: exists, source: person }
      disclosure: { default: predicate, allowed: [predicate] }

    - id: quick
      title: Needs a worker too
      version: "1"
      subject_type: person
      value: { type: boolean }
      rule: { type: cel, expression: "[1, 2, 3].all(a, a > 0)" }
      disclosure: { default: predicate, allowed: [predicate] }

cel:
  eval_timeout: 60s
  worker_count: 1
`;

const person = (id: string) => ({ type: 'person', identifiers: [{ scheme: 'national_id', value: id }] });

/** Sends an evaluation on a connection of its own, which the caller destroys before any answer. */
function sendThenHangUp(port: number, body: unknown, requestId: string) {
  const text = JSON.stringify(body);
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST /v1/evaluations HTTP/1.1\r\nhost: verifier\r\ncontent-type: application/json\r\nx-api-key: ${CALLER_KEYS.full}\r\ndata-purpose: ${EVIDENCE_PURPOSE}\r\nx-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  return socket;
}

/** Calls `spy` before each call of `object[name]`, then the original. */
function spyOn<T extends object>(object: T, name: keyof T, spy: (...args: unknown[]) => void): void {
  const original = object[name] as (...args: unknown[]) => unknown;
  (object as Record<keyof T, unknown>)[name] = (...args: unknown[]) => {
    spy(...args);
    return original.apply(object, args);
  };
}

describe('a client that goes away before its answer', () => {
  let upstream: FakeUpstream;
  let held: ServerResponse[];
  let verifier: TestVerifier;
  let port: number;
  let runtime: VerifierRuntime;
  const stored: string[] = [];
  const rules: unknown[] = [];
  const reads: Promise<unknown>[] = [];

  before(async () => {
    held = [];
    upstream = await startFakeUpstream((_request, response) => {
      held.push(response);
    });
    verifier = await startTestVerifier({
      relays: { civil: upstream.url },
      // Far longer than the tests: nothing here is answered by its time-out.
      edit: (text) =>
        `${text.replace('  bind: 127.0.0.1:0\n', '  bind: 127.0.0.1:0\n  request_timeout: 20s\n')}${SPIN_CLAIMS}`,
    });
    const address = await verifier.verifier.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
    runtime = verifier.verifier.runtime;
    spyOn(runtime.store, 'put', (evaluation) =>
      stored.push((evaluation as { evaluation_id: string }).evaluation_id),
    );
    spyOn(runtime.engine.cel, 'evaluate', (expression) => rules.push(expression));
    const read = runtime.engine.reader.read;
    runtime.engine.reader.read = (lookup) => {
      const pending = read.call(runtime.engine.reader, lookup);
      reads.push(pending.catch(() => {}));
      return pending;
    };
  });
  after(async () => {
    for (const response of held) response.destroy();
    await verifier?.close();
    await upstream?.close();
  });

  const auditOf = (clientRequestId: string) => auditOfRequest(verifier, clientRequestId);

  it('frees the only CEL worker at once for the next request, and audits the request as the client closing', async () => {
    // The worker is ready once it has answered: the long rule below runs at once rather than waiting in the queue.
    const warm = await verifier.evaluate({ target: person('FAKE-warm'), claims: ['quick'] });
    assert.equal(warm.statusCode, 200, warm.body);
    const storedBefore = stored.length;
    const gone = sendThenHangUp(port, { target: person('FAKE-spin'), claims: ['spin'] }, 'spin');
    await until('the long rule is handed to the worker', () => rules.length === 2);
    gone.destroy();
    await until('the request is audited', () => auditOf('spin') !== undefined);

    // The worker is the only one: served now, this request was not waiting behind the long rule.
    const next = await verifier.evaluate(
      { target: person('FAKE-quick'), claims: ['quick'] },
      { headers: { 'x-request-id': 'quick' } },
    );
    assert.equal(next.statusCode, 200, next.body);
    const record = auditOf('spin');
    assert.equal(record?.status, 499);
    assert.equal(record?.problem_code, 'http.client_closed');
    assert.equal(record?.error_code, 'http.client_closed');
    assert.equal(record?.decision, 'evaluate_denied');
    // Only the request that stayed has its evaluation stored.
    assert.deepEqual(stored.slice(storedBefore), [auditOf('quick')?.verification_id]);
  });

  it('drops the read of a client that went away and stores nothing for it', async () => {
    const gone = sendThenHangUp(port, { target: person('FAKE-late'), claims: ['alive_record'] }, 'late');
    await until('the read reaches the relay', () => held.length === 1);
    gone.destroy();
    await until('the request is audited', () => auditOf('late') !== undefined);
    const record = auditOf('late');
    assert.equal(record?.status, 499);
    assert.equal(record?.error_code, 'http.client_closed');
    // Its read was on its way: counted, as for a request answered 504.
    assert.equal(record?.source_read_count, 1);

    // The read on its way is dropped: the relay sees its client go, and an answer it sends now reaches no one.
    const response = held[0] as ServerResponse;
    await until('the relay sees the read dropped', () => response.req.socket.destroyed);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ data: [{ national_id: 'FAKE-late', deceased: false }] }));
    assert.equal(reads.length, 1);
    await reads[0];
    // What follows the read in the handler runs in the same turn.
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(record?.verification_id);
    assert.ok(!stored.includes(String(record?.verification_id)), 'nothing stored for the request');

    // The connection to the relay is free for the next request, which is answered and stored as usual.
    const next = verifier.evaluate(
      { target: person('FAKE-next'), claims: ['alive_record'] },
      { headers: { 'x-request-id': 'next' } },
    );
    await until('the next read reaches the relay', () => held.length === 2);
    (held[1] as ServerResponse).writeHead(200, { 'content-type': 'application/json' });
    (held[1] as ServerResponse).end(
      JSON.stringify({ data: [{ national_id: 'FAKE-next', deceased: false }] }),
    );
    assert.equal((await next).statusCode, 200);
    assert.ok(stored.includes(String(auditOf('next')?.verification_id)));
  });

  it('leaves a request answered on a kept-alive connection as it was', async () => {
    const before = verifier.auditRecords().length;
    const socket = connect(port, '127.0.0.1');
    const text = JSON.stringify({ target: person('FAKE-kept'), claims: ['quick'] });
    const request = `POST /v1/evaluations HTTP/1.1\r\nhost: verifier\r\ncontent-type: application/json\r\nx-api-key: ${CALLER_KEYS.full}\r\ndata-purpose: ${EVIDENCE_PURPOSE}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.write(request);
    await until('the first answer', () => /\r\n\r\n\{.*\}$/s.test(received));
    // Closing the connection after the answer changes nothing: the request was answered, and audited so.
    socket.destroy();
    await until('the connection is closed', () => socket.destroyed);
    // A request after it: a record of the first written on its connection closing would come before this one's.
    const later = await verifier.evaluate({ target: person('FAKE-later'), claims: ['quick'] });
    assert.equal(later.statusCode, 200);
    const records = verifier.auditRecords().slice(before);
    assert.deepEqual(
      records.map((record) => [record.status, record.problem_code]),
      [
        [200, null],
        [200, null],
      ],
    );
    assert.match(received, /^HTTP\/1\.1 200 /);
    assert.match(received, /\r\nconnection: keep-alive\r\n/i);
  });
});

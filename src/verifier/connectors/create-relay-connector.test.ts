// The registry_data_api connector's single reads: the request it sends, how answers and refusals are read, retries.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import type { Problem } from '../../platform/problem/problem.ts';
import { systemRandom } from '../../platform/random.ts';
import { createRelayConnector } from './create-relay-connector.ts';
import { auditCodeOf } from './failure-reason.ts';
import {
  connection,
  counter,
  failure,
  json,
  LOOKUP,
  useConnectorUpstream,
} from './relay-connector-fixture.ts';
import { sourceIdOf } from './source-reader.ts';

describe('registry_data_api connector', () => {
  const upstream = useConnectorUpstream();
  const connector = upstream.connector;

  it('reads one record with the lookup filter, sorted fields, limit=2, bearer, purpose and request id', async () => {
    upstream.handler = (_request, response) =>
      json(response, 200, { data: [{ national_id: 'FAKE-1', deceased: false }] });
    const reader = connector();
    const record = await reader.read(LOOKUP);
    reader.close();
    assert.deepEqual(record.row, { national_id: 'FAKE-1', deceased: false });
    assert.equal(record.sourceId, sourceIdOf(LOOKUP.binding));
    // Names may hold `/`: two bindings that would join to the same text are still two sources.
    const binding = { ...LOOKUP.binding, dataset: 'b/c', entity: 'd' };
    assert.notEqual(sourceIdOf(binding), sourceIdOf({ ...binding, dataset: 'b', entity: 'c/d' }));
    const [request] = upstream.requests;
    assert.ok(request);
    const url = new URL(request.url ?? '', 'http://x');
    assert.equal(url.pathname, '/relay/v1/datasets/civil%20registry/entities/persons/records');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      national_id: 'FAKE-1',
      fields: 'birth_date,deceased,national_id',
      limit: '2',
    });
    assert.equal(request.headers.authorization, 'Bearer relay-secret');
    assert.equal(request.headers['data-purpose'], 'https://p.example/x');
    assert.equal(request.headers['x-request-id'], 'corr-1');
  });

  it('collapses no record and several records into 409 evidence.not_available, keeping the reason for audit', async () => {
    const reader = connector();
    upstream.handler = (_request, response) => json(response, 200, { data: [] });
    const none = await failure(reader.read(LOOKUP));
    upstream.handler = (_request, response) => json(response, 200, { data: [{ a: 1 }, { a: 2 }] });
    const several = await failure(reader.read(LOOKUP));
    reader.close();
    for (const problem of [none, several]) {
      assert.equal(problem.status, 409);
      assert.equal(problem.code, 'evidence.not_available');
      assert.equal(problem.detail, 'No single source record matches the target.');
    }
    assert.equal(auditCodeOf(none), 'target.not_found');
    assert.equal(auditCodeOf(several), 'target.match_ambiguous');
  });

  it('retries 503 after the Retry-After the source asked for, then succeeds', async () => {
    let calls = 0;
    upstream.handler = (_request, response) => {
      calls++;
      if (calls === 1) json(response, 503, {}, { 'retry-after': '1' });
      else json(response, 200, { data: [{ deceased: true }] });
    };
    const reader = connector();
    assert.deepEqual((await reader.read(LOOKUP)).row, { deceased: true });
    reader.close();
    assert.equal(upstream.requests.length, 2);
    assert.deepEqual(upstream.sleeps, [1000]);
  });

  it('gives up after max_attempts of 429 with jittered backoff: 503 source.unavailable', async () => {
    upstream.handler = (_request, response) => json(response, 429, {});
    const reader = connector();
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(auditCodeOf(problem), 'source.rate_limited');
    assert.equal(upstream.requests.length, 3);
    assert.equal(upstream.sleeps.length, 2);
    assert.ok(
      (upstream.sleeps[0] as number) < 100 && (upstream.sleeps[1] as number) < 200,
      String(upstream.sleeps),
    );
  });

  it('does not wait for a Retry-After longer than max_retry_after, and passes it on', async () => {
    upstream.handler = (_request, response) => json(response, 503, {}, { 'retry-after': '60' });
    const reader = connector();
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(upstream.requests.length, 1);
    assert.deepEqual(upstream.sleeps, []);
    assert.equal(problem.headers['retry-after'], '60');
  });

  it('does not retry other failures, and never follows a redirect', async () => {
    upstream.handler = (_request, response) => {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
      response.end();
    };
    const reader = connector();
    const redirect = await failure(reader.read(LOOKUP));
    upstream.handler = (_request, response) => json(response, 500, {});
    const broken = await failure(reader.read(LOOKUP));
    upstream.handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"rows": []}');
    };
    const shape = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(upstream.requests.length, 3);
    assert.deepEqual(
      [redirect, broken, shape].map((p) => [p.code, auditCodeOf(p)]),
      [
        ['source.unavailable', 'source.redirect_refused'],
        ['source.unavailable', 'source.http_500'],
        ['source.unavailable', 'source.invalid_response'],
      ],
    );
  });

  it('does not retry a gateway error (502, 504): only 429 and 503 are retried', async () => {
    const reader = connector();
    const answers = [];
    for (const status of [502, 504]) {
      upstream.handler = (_request, response) => json(response, status, {}, { 'retry-after': '1' });
      answers.push(await failure(reader.read(LOOKUP)));
    }
    reader.close();
    assert.equal(upstream.requests.length, 2);
    assert.deepEqual(upstream.sleeps, []);
    assert.deepEqual(
      answers.map((p) => [p.status, p.code, auditCodeOf(p)]),
      [
        [503, 'source.unavailable', 'source.http_502'],
        [503, 'source.unavailable', 'source.http_504'],
      ],
    );
  });

  it('takes records only from a JSON answer: another content type is 503 source.invalid_response', async () => {
    const envelope = '{"data":[{"national_id":"FAKE-1","deceased":false}]}';
    const answer =
      (type: string | string[] | undefined) => (_request: IncomingMessage, response: ServerResponse) => {
        response.writeHead(200, type === undefined ? {} : { 'content-type': type });
        response.end(envelope);
      };
    const reader = connector();
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      upstream.handler = answer(type);
      assert.equal((await reader.read(LOOKUP)).row.deceased, false, type);
    }
    // A proxy's or captive portal's page that happens to parse as JSON is not the relay's answer.
    const problems: Problem[] = [];
    // Two Content-Type headers (a proxy adding its own) say nothing of what the body is.
    const doubled = [
      ['application/json', 'text/html'],
      ['application/json', 'application/json'],
    ];
    for (const type of ['text/html', 'text/plain', 'application/jsonp', undefined, ...doubled]) {
      upstream.handler = answer(type);
      problems.push(await failure(reader.read(LOOKUP)));
    }
    reader.close();
    for (const problem of problems) {
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', 'source.invalid_response'],
      );
    }
    assert.deepEqual(upstream.sleeps, []);
  });

  it('answers a 400 (a lookup value the source refuses) 409 evidence.not_available, without retrying', async () => {
    upstream.handler = (_request, response) =>
      json(response, 400, { code: 'filter.invalid_value' }, { 'content-type': 'application/problem+json' });
    const reader = connector();
    const problem = await failure(reader.read({ ...LOOKUP, value: 'not-a-number' }));
    reader.close();
    assert.equal(problem.status, 409);
    assert.equal(problem.code, 'evidence.not_available');
    assert.equal(auditCodeOf(problem), 'source.http_400');
    assert.equal(upstream.requests.length, 1);
    assert.deepEqual(upstream.sleeps, []);
  });

  it('answers any other 400 (a binding the relay schema refuses) 503 source.unavailable, without retrying', async () => {
    const reader = connector();
    const problems: Problem[] = [];
    const bodies = [
      JSON.stringify({ code: 'filter.unknown_field' }),
      JSON.stringify({ code: 'filter.not_allowed' }),
      JSON.stringify({ code: 'entity.filter_required' }),
      JSON.stringify({ code: 7 }),
      JSON.stringify(['filter.invalid_value']),
      'filter.invalid_value',
      '',
    ];
    for (const body of bodies) {
      upstream.handler = (_request, response) => {
        response.writeHead(400, { 'content-type': 'application/problem+json' });
        response.end(body);
      };
      problems.push(await failure(reader.read(LOOKUP)));
    }
    reader.close();
    for (const problem of problems) {
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', 'source.request_refused'],
      );
    }
    assert.equal(upstream.requests.length, bodies.length);
    assert.deepEqual(upstream.sleeps, []);
  });

  it('refuses a record nested deeper than 32 levels as 503 source.invalid_response, without retrying', async () => {
    // Written as text: a record 5,000 levels deep is what made the rule evaluator answer 500.
    const answer = (deep: string) => (_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"data":[{"national_id":"FAKE-1","deep":${deep}}]}`);
    };
    const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const reader = connector();
    upstream.handler = answer(arrays(32));
    assert.equal((await reader.read(LOOKUP)).row.national_id, 'FAKE-1');
    const problems: Problem[] = [];
    for (const deep of [arrays(33), `${'{"a":['.repeat(2500)}${']}'.repeat(2500)}`]) {
      upstream.handler = answer(deep);
      problems.push(await failure(reader.read(LOOKUP)));
    }
    reader.close();
    for (const problem of problems) {
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', 'source.invalid_response'],
      );
    }
    assert.equal(upstream.requests.length, 3);
    assert.deepEqual(upstream.sleeps, []);
  });

  it('still answers 401, 403 and 404 from the source 503 source.unavailable', async () => {
    const reader = connector();
    const problems: Problem[] = [];
    for (const status of [401, 403, 404]) {
      upstream.handler = (_request, response) => json(response, status, {});
      problems.push(await failure(reader.read(LOOKUP)));
    }
    reader.close();
    assert.deepEqual(
      problems.map((problem) => [problem.status, problem.code, auditCodeOf(problem)]),
      [
        [503, 'source.unavailable', 'source.http_401'],
        [503, 'source.unavailable', 'source.http_403'],
        [503, 'source.unavailable', 'source.http_404'],
      ],
    );
    assert.equal(upstream.requests.length, 3);
  });

  it('treats a malformed Retry-After as absent: jittered backoff, nothing passed on', async () => {
    // `-1` is a date to V8's Date.parse (2001): that read as "retry now" and passed `Retry-After: 0` on.
    upstream.handler = (_request, response) => json(response, 503, {}, { 'retry-after': '-1' });
    const halfway = { ...systemRandom, bytes: (length: number) => Buffer.alloc(length, 0x80) };
    const reader = createRelayConnector({ relay: connection(upstream.port) }, new Map([['relay', 't']]), {
      clock: systemClock,
      random: halfway,
      sleep: async (ms) => {
        upstream.sleeps.push(ms);
      },
    });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(upstream.requests.length, 3);
    assert.deepEqual(upstream.sleeps, [50, 100]);
    assert.equal(problem.headers['retry-after'], undefined);
  });

  it('passes a Retry-After of 0 or a date past on as one second, once every attempt is spent', async () => {
    for (const value of ['0', 'Thu, 01 Jan 1970 00:00:00 GMT']) {
      upstream.handler = (_request, response) => json(response, 503, {}, { 'retry-after': value });
      const reader = connector();
      const problem = await failure(reader.read(LOOKUP));
      reader.close();
      assert.equal(problem.code, 'source.unavailable');
      assert.equal(problem.headers['retry-after'], '1', value);
    }
  });

  it("reads a Retry-After date against the source's own Date, whatever its clock says", async () => {
    // The source's clock runs an hour ahead: its date two seconds on is two seconds, not an hour and two seconds.
    const sourceNow = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
    let calls = 0;
    upstream.handler = (_request, response) => {
      calls++;
      if (calls > 1) return json(response, 200, { data: [{ deceased: true }] });
      json(
        response,
        503,
        {},
        {
          date: new Date(sourceNow).toUTCString(),
          'retry-after': new Date(sourceNow + 2000).toUTCString(),
        },
      );
    };
    const reader = connector();
    assert.deepEqual((await reader.read(LOOKUP)).row, { deceased: true });
    reader.close();
    assert.deepEqual(upstream.sleeps, [2000]);
  });

  it('passes an absurd Retry-After on as one day, a whole number of seconds', async () => {
    upstream.handler = (_request, response) => json(response, 429, {}, { 'retry-after': '9'.repeat(300) });
    const reader = connector();
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(problem.headers['retry-after'], '86400');
    assert.equal(upstream.requests.length, 1);
  });

  it('tells the trace once when a read leaves, however many attempts it takes', async () => {
    let calls = 0;
    upstream.handler = (_request, response) => {
      calls++;
      if (calls === 1) json(response, 503, {});
      else json(response, 200, { data: [{ deceased: false }] });
    };
    const reader = connector();
    const trace = counter();
    await reader.read({ ...LOOKUP, trace });
    reader.close();
    assert.equal(upstream.requests.length, 2);
    assert.equal(trace.sent, 1);
  });
});

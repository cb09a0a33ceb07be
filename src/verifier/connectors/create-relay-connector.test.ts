import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { nationalIdTable } from '../../../test/helpers/fake-relay-table.ts';
import { systemClock } from '../../platform/clock.ts';
import { isProblem, type Problem } from '../../platform/problem/problem.ts';
import { systemRandom } from '../../platform/random.ts';
import type { SourceBindingConfig, SourceConnectionConfig } from '../config/schema.ts';
import { createRelayConnector } from './create-relay-connector.ts';
import { auditCodeOf } from './failure-reason.ts';
import type { SourceLookup } from './source-reader.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

const BINDING: SourceBindingConfig = {
  connector: 'registry_data_api',
  connection: 'relay',
  dataset: 'civil registry',
  entity: 'persons',
  lookup: { input: 'target.identifiers.national_id', field: 'national_id' },
  fields: ['deceased', 'birth_date'],
};

function connection(port: number, overrides: Partial<SourceConnectionConfig> = {}): SourceConnectionConfig {
  return {
    base_url: `http://127.0.0.1:${port}/relay/`,
    token_env: 'T',
    allow_insecure_localhost: true,
    allow_insecure_private_network: false,
    allow_link_local: false,
    max_in_flight: 8,
    timeout: 2000,
    retry: { max_attempts: 3, base_delay: 100, max_delay: 1000, max_retry_after: 5000 },
    bulk_mode: 'none',
    bulk_max_values: 100,
    coalesce_reads: false,
    ...overrides,
  };
}

const LOOKUP: SourceLookup = {
  binding: BINDING,
  value: 'FAKE-1',
  purpose: 'https://p.example/x',
  requestId: 'corr-1',
};

/** A read trace that counts what it is told. */
const counter = () => ({
  sent: 0,
  readSent() {
    this.sent++;
  },
});

async function failure(promise: Promise<unknown>): Promise<Problem> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isProblem(error), String(error));
    return error;
  }
  assert.fail('expected a problem');
}

describe('registry_data_api connector', () => {
  let server: Server;
  let port: number;
  let handler: Handler;
  let requests: IncomingMessage[];
  let sleeps: number[];

  before(async () => {
    server = createServer((request, response) => {
      requests.push(request);
      handler(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    requests = [];
    sleeps = [];
  });

  const connector = (overrides: Partial<SourceConnectionConfig> = {}) =>
    createRelayConnector({ relay: connection(port, overrides) }, new Map([['relay', 'relay-secret']]), {
      clock: systemClock,
      random: systemRandom,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });

  it('reads one record with the lookup filter, sorted fields, limit=2, bearer, purpose and request id', async () => {
    handler = (_request, response) =>
      json(response, 200, { data: [{ national_id: 'FAKE-1', deceased: false }] });
    const reader = connector();
    const record = await reader.read(LOOKUP);
    reader.close();
    assert.deepEqual(record.row, { national_id: 'FAKE-1', deceased: false });
    assert.equal(record.sourceId, 'relay/civil registry/persons');
    const [request] = requests;
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
    handler = (_request, response) => json(response, 200, { data: [] });
    const none = await failure(reader.read(LOOKUP));
    handler = (_request, response) => json(response, 200, { data: [{ a: 1 }, { a: 2 }] });
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
    handler = (_request, response) => {
      calls++;
      if (calls === 1) json(response, 503, {}, { 'retry-after': '1' });
      else json(response, 200, { data: [{ deceased: true }] });
    };
    const reader = connector();
    assert.deepEqual((await reader.read(LOOKUP)).row, { deceased: true });
    reader.close();
    assert.equal(requests.length, 2);
    assert.deepEqual(sleeps, [1000]);
  });

  it('gives up after max_attempts of 429 with jittered backoff: 503 source.unavailable', async () => {
    handler = (_request, response) => json(response, 429, {});
    const reader = connector();
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(auditCodeOf(problem), 'source.rate_limited');
    assert.equal(requests.length, 3);
    assert.equal(sleeps.length, 2);
    assert.ok((sleeps[0] as number) < 100 && (sleeps[1] as number) < 200, String(sleeps));
  });

  it('does not wait for a Retry-After longer than max_retry_after, and passes it on', async () => {
    handler = (_request, response) => json(response, 503, {}, { 'retry-after': '60' });
    const reader = connector();
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(requests.length, 1);
    assert.deepEqual(sleeps, []);
    assert.equal(problem.headers['retry-after'], '60');
  });

  it('does not retry other failures, and never follows a redirect', async () => {
    handler = (_request, response) => {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
      response.end();
    };
    const reader = connector();
    const redirect = await failure(reader.read(LOOKUP));
    handler = (_request, response) => json(response, 500, {});
    const broken = await failure(reader.read(LOOKUP));
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"rows": []}');
    };
    const shape = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(requests.length, 3);
    assert.deepEqual(
      [redirect, broken, shape].map((p) => [p.code, auditCodeOf(p)]),
      [
        ['source.unavailable', 'source.redirect_refused'],
        ['source.unavailable', 'source.http_500'],
        ['source.unavailable', 'source.invalid_response'],
      ],
    );
  });

  it('takes records only from a JSON answer: another content type is 503 source.invalid_response', async () => {
    const envelope = '{"data":[{"national_id":"FAKE-1","deceased":false}]}';
    const answer = (type: string | undefined) => (_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(200, type === undefined ? {} : { 'content-type': type });
      response.end(envelope);
    };
    const reader = connector();
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      handler = answer(type);
      assert.equal((await reader.read(LOOKUP)).row.deceased, false, type);
    }
    // A proxy's or captive portal's page that happens to parse as JSON is not the relay's answer.
    const problems: Problem[] = [];
    for (const type of ['text/html', 'text/plain', 'application/jsonp', undefined]) {
      handler = answer(type);
      problems.push(await failure(reader.read(LOOKUP)));
    }
    reader.close();
    for (const problem of problems) {
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', 'source.invalid_response'],
      );
    }
    assert.deepEqual(sleeps, []);
  });

  it('answers a 400 (a lookup value the source refuses) 409 evidence.not_available, without retrying', async () => {
    handler = (_request, response) =>
      json(response, 400, { code: 'filter.invalid_value' }, { 'content-type': 'application/problem+json' });
    const reader = connector();
    const problem = await failure(reader.read({ ...LOOKUP, value: 'not-a-number' }));
    reader.close();
    assert.equal(problem.status, 409);
    assert.equal(problem.code, 'evidence.not_available');
    assert.equal(auditCodeOf(problem), 'source.http_400');
    assert.equal(requests.length, 1);
    assert.deepEqual(sleeps, []);
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
      handler = (_request, response) => {
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
    assert.equal(requests.length, bodies.length);
    assert.deepEqual(sleeps, []);
  });

  it('refuses a record nested deeper than 32 levels as 503 source.invalid_response, without retrying', async () => {
    // Written as text: a record 5,000 levels deep is what made the rule evaluator answer 500.
    const answer = (deep: string) => (_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"data":[{"national_id":"FAKE-1","deep":${deep}}]}`);
    };
    const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const reader = connector();
    handler = answer(arrays(32));
    assert.equal((await reader.read(LOOKUP)).row.national_id, 'FAKE-1');
    const problems: Problem[] = [];
    for (const deep of [arrays(33), `${'{"a":['.repeat(2500)}${']}'.repeat(2500)}`]) {
      handler = answer(deep);
      problems.push(await failure(reader.read(LOOKUP)));
    }
    reader.close();
    for (const problem of problems) {
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', 'source.invalid_response'],
      );
    }
    assert.equal(requests.length, 3);
    assert.deepEqual(sleeps, []);
  });

  it('still answers 401, 403 and 404 from the source 503 source.unavailable', async () => {
    const reader = connector();
    const problems: Problem[] = [];
    for (const status of [401, 403, 404]) {
      handler = (_request, response) => json(response, status, {});
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
    assert.equal(requests.length, 3);
  });

  it('treats a malformed Retry-After as absent: jittered backoff, nothing passed on', async () => {
    // `-1` is a date to V8's Date.parse (2001): that read as "retry now" and passed `Retry-After: 0` on.
    handler = (_request, response) => json(response, 503, {}, { 'retry-after': '-1' });
    const halfway = { ...systemRandom, bytes: (length: number) => Buffer.alloc(length, 0x80) };
    const reader = createRelayConnector({ relay: connection(port) }, new Map([['relay', 't']]), {
      clock: systemClock,
      random: halfway,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(requests.length, 3);
    assert.deepEqual(sleeps, [50, 100]);
    assert.equal(problem.headers['retry-after'], undefined);
  });

  it('passes an absurd Retry-After on as one day, a whole number of seconds', async () => {
    handler = (_request, response) => json(response, 429, {}, { 'retry-after': '9'.repeat(300) });
    const reader = connector();
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(problem.headers['retry-after'], '86400');
    assert.equal(requests.length, 1);
  });

  it('tells the trace once when a read leaves, however many attempts it takes', async () => {
    let calls = 0;
    handler = (_request, response) => {
      calls++;
      if (calls === 1) json(response, 503, {});
      else json(response, 200, { data: [{ deceased: false }] });
    };
    const reader = connector();
    const trace = counter();
    await reader.read({ ...LOOKUP, trace });
    reader.close();
    assert.equal(requests.length, 2);
    assert.equal(trace.sent, 1);
  });

  describe('the request deadline', () => {
    it('sends nothing once the deadline has passed: 504 internal.timeout, and the trace is not told', async () => {
      handler = (_request, response) => json(response, 200, { data: [{}] });
      const reader = connector();
      const trace = counter();
      const problem = await failure(reader.read({ ...LOOKUP, deadline: performance.now() - 1, trace }));
      reader.close();
      assert.equal(problem.status, 504);
      assert.equal(problem.code, 'internal.timeout');
      assert.equal(auditCodeOf(problem), 'source.deadline_passed');
      assert.equal(requests.length, 0);
      assert.equal(trace.sent, 0);
    });

    it('gives up waiting for a free slot at the deadline; the read is never sent', async () => {
      // The first read holds the only slot for 300 ms; the second may wait 50 ms.
      handler = (_request, response) => {
        setTimeout(() => json(response, 200, { data: [{ deceased: false }] }), 300);
      };
      const reader = connector({ max_in_flight: 1 });
      const first = counter();
      const second = counter();
      const holding = reader.read({ ...LOOKUP, trace: first });
      const problem = await failure(
        reader.read({ ...LOOKUP, deadline: performance.now() + 50, trace: second }),
      );
      assert.equal(problem.code, 'internal.timeout');
      assert.equal(auditCodeOf(problem), 'source.deadline_passed');
      // The read holding the slot was counted when it left, before its answer.
      assert.equal(first.sent, 1);
      await holding;
      await new Promise((resolve) => setTimeout(resolve, 50));
      reader.close();
      assert.equal(requests.length, 1);
      assert.equal(second.sent, 0);
    });

    it('cuts an attempt short at the deadline and does not retry past it', async () => {
      handler = () => {};
      const reader = connector({ timeout: 10_000 });
      const trace = counter();
      const started = performance.now();
      const problem = await failure(reader.read({ ...LOOKUP, deadline: started + 100, trace }));
      const took = performance.now() - started;
      reader.close();
      assert.equal(problem.code, 'internal.timeout');
      assert.equal(auditCodeOf(problem), 'source.timeout');
      assert.ok(took >= 90 && took < 5_000, `gave up after ${took} ms`);
      assert.equal(requests.length, 1);
      assert.deepEqual(sleeps, []);
      assert.equal(trace.sent, 1);
    });

    it('does not wait for a retry that would start past the deadline: 503 with what the source said', async () => {
      handler = (_request, response) => json(response, 503, {}, { 'retry-after': '1' });
      const reader = connector();
      const problem = await failure(reader.read({ ...LOOKUP, deadline: performance.now() + 500 }));
      reader.close();
      assert.equal(problem.code, 'source.unavailable');
      assert.equal(auditCodeOf(problem), 'source.http_503');
      assert.equal(problem.headers['retry-after'], '1');
      assert.equal(requests.length, 1);
      assert.deepEqual(sleeps, []);
    });
  });

  it('times out a silent upstream per attempt and retries', async () => {
    handler = () => {};
    const reader = connector({
      timeout: 100,
      retry: { max_attempts: 2, base_delay: 1, max_delay: 1, max_retry_after: 0 },
    });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(auditCodeOf(problem), 'source.timeout');
    assert.equal(requests.length, 2);
  });

  it('retries transport errors (connection refused)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const reader = createRelayConnector({ relay: connection(deadPort) }, new Map([['relay', 't']]), {
      clock: systemClock,
      random: systemRandom,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(auditCodeOf(problem), 'source.network');
    assert.equal(sleeps.length, 2);
  });

  it('answers source.unavailable for a connection that is not configured', async () => {
    const reader = connector();
    const problem = await failure(reader.read({ ...LOOKUP, binding: { ...BINDING, connection: 'other' } }));
    reader.close();
    assert.equal(problem.status, 503);
    assert.equal(auditCodeOf(problem), 'source.not_configured');
    assert.equal(requests.length, 0);
  });

  it('refuses loopback addresses, by literal and by DNS name, unless allowed', async () => {
    handler = (_request, response) => json(response, 200, { data: [{}] });
    const guarded = connector({ allow_insecure_localhost: false, allow_insecure_private_network: true });
    const literal = await failure(guarded.read(LOOKUP));
    guarded.close();
    const named = createRelayConnector(
      {
        relay: {
          ...connection(port, { allow_insecure_localhost: false, allow_insecure_private_network: true }),
          base_url: `http://localhost:${port}`,
        },
      },
      new Map([['relay', 't']]),
      { clock: systemClock, random: systemRandom },
    );
    const byName = await failure(named.read(LOOKUP));
    named.close();
    assert.equal(requests.length, 0);
    for (const problem of [literal, byName]) assert.equal(auditCodeOf(problem), 'source.address_denied');
  });

  it('refuses a response over 1 MiB without retrying it', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"data":[{"x":"${'a'.repeat(1024 * 1024)}"}]}`);
    };
    const reader = connector();
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(auditCodeOf(problem), 'source.too_large');
    assert.equal(requests.length, 1);
  });

  it('reuses kept-alive sockets for consecutive reads of a connection', async () => {
    handler = (_request, response) => json(response, 200, { data: [{ deceased: false }] });
    let sockets = 0;
    const count = () => sockets++;
    server.on('connection', count);
    const reader = connector();
    try {
      for (let i = 0; i < 6; i++) await reader.read(LOOKUP);
    } finally {
      reader.close();
      server.off('connection', count);
    }
    assert.equal(requests.length, 6);
    // The pool may open a second socket while the first is being handed back; never one per read.
    assert.ok(sockets <= 2, `${sockets} sockets for 6 reads`);
    assert.equal(requests[0]?.headers.host, `127.0.0.1:${port}`);
  });

  it('keeps at most max_in_flight requests open per connection', async () => {
    let open = 0;
    let peak = 0;
    handler = (_request, response) => {
      open++;
      peak = Math.max(peak, open);
      setTimeout(() => {
        open--;
        json(response, 200, { data: [{}] });
      }, 20);
    };
    const reader = connector({ max_in_flight: 2 });
    await Promise.all(Array.from({ length: 6 }, () => reader.read(LOOKUP)));
    reader.close();
    assert.equal(requests.length, 6);
    assert.equal(peak, 2);
  });

  describe('bulk reads (rda_in_filter)', () => {
    const BULK = { binding: BINDING, purpose: 'https://p.example/x', requestId: 'corr-b' };
    const bulk = (overrides: Partial<SourceConnectionConfig> = {}) =>
      connector({ bulk_mode: 'rda_in_filter', bulk_max_values: 50, ...overrides });
    const outcome = (settled: Map<string, unknown>, value: string) =>
      settled.get(value) as { record?: { row: unknown }; problem?: Problem } | undefined;

    it('is offered only where the connection allows it', () => {
      const plain = connector();
      const batching = bulk();
      assert.equal(plain.bulkLimit(BINDING), 0);
      assert.equal(batching.bulkLimit(BINDING), 50);
      assert.equal(batching.bulkLimit({ ...BINDING, connection: 'elsewhere' }), 0);
      plain.close();
      batching.close();
    });

    it('reads many values in one request with field.in and matches rows back by the lookup field', async () => {
      handler = (_request, response) =>
        json(response, 200, {
          data: [
            { national_id: 'A', deceased: false },
            { national_id: 'B', deceased: true },
            { national_id: 'C', deceased: false },
            { national_id: 'C', deceased: true },
          ],
          pagination: { has_more: false },
        });
      const reader = bulk();
      const settled = await reader.readMany({ ...BULK, values: ['A', 'B', 'C', 'D', 'A'] });
      reader.close();
      assert.equal(requests.length, 1);
      const url = new URL(requests[0]?.url ?? '', 'http://x');
      assert.deepEqual(Object.fromEntries(url.searchParams), {
        'national_id.in': 'A,B,C,D',
        fields: 'birth_date,deceased,national_id',
        limit: '4',
      });
      assert.equal(requests[0]?.headers.authorization, 'Bearer relay-secret');
      assert.equal(requests[0]?.headers['data-purpose'], 'https://p.example/x');
      assert.equal(requests[0]?.headers['x-request-id'], 'corr-b');
      assert.deepEqual(outcome(settled, 'A')?.record?.row, { national_id: 'A', deceased: false });
      assert.deepEqual(outcome(settled, 'B')?.record?.row, { national_id: 'B', deceased: true });
      const ambiguous = outcome(settled, 'C')?.problem as Problem;
      const missing = outcome(settled, 'D')?.problem as Problem;
      assert.equal(ambiguous.code, 'evidence.not_available');
      assert.equal(auditCodeOf(ambiguous), 'target.match_ambiguous');
      assert.equal(missing.code, 'evidence.not_available');
      assert.equal(auditCodeOf(missing), 'target.not_found');
    });

    it('leaves values it cannot settle to single reads: a cut-short page, rewritten keys, no rows at all', async () => {
      const reader = bulk();
      // has_more: only the certainly ambiguous value is settled.
      handler = (_request, response) =>
        json(response, 200, {
          data: [{ national_id: 'A' }, { national_id: 'A' }],
          pagination: { has_more: true },
        });
      let settled = await reader.readMany({ ...BULK, values: ['A', 'B'] });
      assert.deepEqual([...settled.keys()], ['A']);
      // Without pagination, a full page may have been cut short.
      handler = (_request, response) =>
        json(response, 200, { data: [{ national_id: 'A' }, { national_id: 'B' }] });
      settled = await reader.readMany({ ...BULK, values: ['A', 'B'] });
      assert.deepEqual([...settled.keys()], []);
      // Numeric keys: the source may have normalised "007" to 7, so an absent value proves nothing.
      handler = (_request, response) =>
        json(response, 200, { data: [{ national_id: 7 }], pagination: { has_more: false } });
      settled = await reader.readMany({ ...BULK, values: ['7', '007'] });
      assert.deepEqual([...settled.keys()], ['7']);
      // A row for a value not asked (a source comparing case-insensitively): a value's one row may not be all its
      // single read would find, so only the ambiguity the answer proves is settled.
      handler = (_request, response) =>
        json(response, 200, {
          data: [{ national_id: 'A1' }, { national_id: 'a1' }, { national_id: 'B2' }, { national_id: 'B2' }],
          pagination: { has_more: false },
        });
      settled = await reader.readMany({ ...BULK, values: ['A1', 'B2', 'C3', 'D4', 'E5'] });
      assert.deepEqual([...settled.keys()], ['B2']);
      // No row at all: nothing shows how the source compares values.
      handler = (_request, response) => json(response, 200, { data: [], pagination: { has_more: false } });
      settled = await reader.readMany({ ...BULK, values: ['A', 'B'] });
      assert.equal(settled.size, 0);
      reader.close();
    });

    const table = nationalIdTable;
    const inList = (request: IncomingMessage | undefined) =>
      new URL(request?.url ?? '', 'http://x').searchParams.get('national_id.in')?.split(',');
    /** The values settled, and how: a record, or the audit reason of the problem. */
    const summary = (settled: Map<string, { record: unknown } | { problem: Problem }>) =>
      Object.fromEntries(
        [...settled].map(([value, out]) => [value, 'record' in out ? 'record' : auditCodeOf(out.problem)]),
      );
    /** The source answers the lookup field in its own spelling. */
    const answering = (...cells: unknown[]) =>
      ((_request: IncomingMessage, response: ServerResponse) =>
        json(response, 200, {
          data: cells.map((cell) => ({ national_id: cell, deceased: false })),
          pagination: { has_more: false },
        })) satisfies Handler;

    it('reads singly a timestamp spelled otherwise than the source answers it, settles one it answers', async () => {
      // A timestamp field: the relay matches every spelling of the instant and answers `…00.000Z`.
      handler = answering('2020-01-01T00:00:00.000Z');
      const reader = bulk();
      const settled = await reader.readMany({
        ...BULK,
        values: [
          '2020-01-01T00:00:00.000Z',
          '2020-01-01T00:00:00Z',
          '2020-01-01',
          '2020-01-01T01:00:00+01:00',
          '2019-12-31T19:00:00-05:00',
          '2021-06-01T00:00:00.000Z',
        ],
      });
      // Listed the other way round, the spelling answered is still the only one settled.
      const reversed = await reader.readMany({
        ...BULK,
        values: ['2020-01-01T00:00:00Z', '2020-01-01T00:00:00.000Z'],
      });
      reader.close();
      assert.deepEqual(summary(settled), {
        '2020-01-01T00:00:00.000Z': 'record',
        // No row of the source could be another spelling of a day a year and a half away.
        '2021-06-01T00:00:00.000Z': 'target.not_found',
      });
      assert.deepEqual(summary(reversed), { '2020-01-01T00:00:00.000Z': 'record' });
    });

    it('reads singly a value the source may answer as a date it holds, and settles other dates', async () => {
      handler = answering('2020-01-01');
      const reader = bulk();
      const settled = await reader.readMany({
        ...BULK,
        values: ['2020-01-01', '2020-01-01T00:00:00Z', '2020-01-02', '2020-03-01'],
      });
      reader.close();
      // The day after may be the same day in another zone: only a day further is certainly not found.
      assert.deepEqual(summary(settled), { '2020-01-01': 'record', '2020-03-01': 'target.not_found' });
    });

    it('reads singly another spelling of a number the source holds, as text or as a number', async () => {
      const reader = bulk();
      handler = answering('7');
      const text = await reader.readMany({ ...BULK, values: ['7', '7.0', '07', '+7', '7e0', '8'] });
      handler = answering(7);
      const number = await reader.readMany({ ...BULK, values: ['7', '07', '8'] });
      reader.close();
      assert.deepEqual(summary(text), { '7': 'record', '8': 'target.not_found' });
      // A number answered may have been matched from any spelling: nothing absent is settled.
      assert.deepEqual(summary(number), { '7': 'record' });
    });

    it('reads singly what a case- or accent-insensitive source may have answered under another value', async () => {
      const reader = bulk();
      // Both spellings asked and both held: a single read of either finds two records.
      handler = answering('AB-1', 'ab-1');
      const both = await reader.readMany({ ...BULK, values: ['AB-1', 'ab-1', 'Ab-1', 'CD-2'] });
      // One held: it is all either spelling finds, but only the one answered under its own text is settled.
      handler = answering('AB-1');
      const one = await reader.readMany({ ...BULK, values: ['ab-1', 'AB-1', 'CD-2'] });
      handler = answering('Élan', 'STRASSE-1');
      const accents = await reader.readMany({
        ...BULK,
        values: ['Élan', 'élan', 'Elan', 'E\u0301lan', 'STRASSE-1', 'straße-1', 'Other'],
      });
      reader.close();
      assert.deepEqual(summary(both), { 'CD-2': 'target.not_found' });
      assert.deepEqual(summary(one), { 'AB-1': 'record', 'CD-2': 'target.not_found' });
      assert.deepEqual(summary(accents), {
        Élan: 'record',
        'STRASSE-1': 'record',
        Other: 'target.not_found',
      });
    });

    it('asks again in halves when a bulk answer is too large: every value settled, one request per half', async () => {
      const rows = Array.from({ length: 120 }, (_, index) => ({
        national_id: `N-${index}`,
        deceased: false,
        notes: 'x'.repeat(12_000),
      }));
      handler = table(rows);
      const reader = bulk({ bulk_max_values: 100 });
      let sent = 0;
      const trace = counter();
      const values = rows.slice(0, 100).map((row) => row.national_id);
      const settled = await reader.readMany({
        ...BULK,
        values,
        trace,
        requests: { requestSent: () => sent++ },
      });
      reader.close();
      assert.equal(settled.size, 100);
      assert.ok([...settled.values()].every((entry) => 'record' in entry));
      assert.deepEqual(
        requests.map((request) => inList(request)?.length),
        [100, 50, 50],
      );
      assert.equal(sent, 3, 'every request sent is counted');
      assert.equal(trace.sent, 1, 'the read is traced once');
      assert.deepEqual(sleeps, []);
    });

    it('narrows an invalid bulk answer down to the value whose record is at fault, left to its single read', async () => {
      const deep = `{"national_id":"V-3","deep":${'['.repeat(40)}${']'.repeat(40)}}`;
      const rows = Array.from({ length: 10 }, (_, index) =>
        index === 3 ? { national_id: 'V-3', raw: deep } : { national_id: `V-${index}`, deceased: false },
      );
      handler = table(rows);
      const reader = bulk();
      const values = rows.map((row) => row.national_id);
      const settled = await reader.readMany({ ...BULK, values });
      // V-3 and the one value it was last asked with are left to single reads.
      assert.deepEqual(
        [...settled.keys()].sort(),
        values.filter((value) => value !== 'V-3' && value !== 'V-4'),
      );
      assert.ok([...settled.values()].every((entry) => 'record' in entry));
      // Halves of 10, 5, 3 and 2 values: a value alone is never asked with `.in`.
      assert.deepEqual(
        requests.map((request) => inList(request)),
        [values, values.slice(0, 5), values.slice(5), ['V-0', 'V-1', 'V-2'], ['V-3', 'V-4']],
      );
      // Its single read fails its own subject only, as it would have alone.
      const problem = await failure(reader.read({ ...LOOKUP, value: 'V-3' }));
      const alone = await reader.read({ ...LOOKUP, value: 'V-4' });
      reader.close();
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', 'source.invalid_response'],
      );
      assert.equal(alone.row.national_id, 'V-4');
    });

    it('gives the values of a half the source fails the outcome single reads would have, the other half its own', async () => {
      handler = (request, response) => {
        const asked = inList(request) ?? [];
        if (asked.length === 4)
          json(response, 200, { data: [{ national_id: 'A', deep: 'x'.repeat(1024 * 1024) }] });
        else if (asked.includes('A')) json(response, 500, {});
        else table(asked.map((value) => ({ national_id: value })))(request, response);
      };
      const reader = bulk();
      const settled = await reader.readMany({ ...BULK, values: ['A', 'B', 'C', 'D'] });
      reader.close();
      assert.deepEqual(summary(settled), {
        A: 'source.http_500',
        B: 'source.http_500',
        C: 'record',
        D: 'record',
      });
      assert.equal(requests.length, 3);
    });

    it('counts every request sent, retries included, and tells the trace once', async () => {
      let calls = 0;
      handler = (request, response) => {
        calls++;
        if (calls % 3 !== 0) json(response, 503, {}, { 'retry-after': '0' });
        else table([{ national_id: 'A' }, { national_id: 'B' }])(request, response);
      };
      const reader = bulk();
      const sent = { bulk: 0, single: 0 };
      const trace = counter();
      const settled = await reader.readMany({
        ...BULK,
        values: ['A', 'B'],
        trace,
        requests: { requestSent: () => sent.bulk++ },
      });
      const record = await reader.read({
        ...LOOKUP,
        value: 'A',
        requests: { requestSent: () => sent.single++ },
      });
      reader.close();
      assert.equal(settled.size, 2);
      assert.equal(record.row.national_id, 'A');
      assert.equal(requests.length, 6);
      assert.deepEqual(sent, { bulk: 3, single: 3 });
      assert.equal(trace.sent, 1);
    });

    it('falls back to single reads when the source refuses the bulk form, and fails when it is unavailable', async () => {
      const reader = bulk();
      handler = (_request, response) =>
        json(
          response,
          400,
          { code: 'entity.filter_required' },
          { 'content-type': 'application/problem+json' },
        );
      assert.equal((await reader.readMany({ ...BULK, values: ['A', 'B'] })).size, 0);
      assert.equal(requests.length, 1, 'a refusal is not retried');
      handler = (_request, response) => json(response, 503, {});
      const problem = await failure(reader.readMany({ ...BULK, values: ['A', 'B'] }));
      reader.close();
      assert.equal(problem.code, 'source.unavailable');
      assert.equal(requests.length, 4, 'retried like a single read');
    });
  });
});

// Coalesced single reads over a real connection: what each shared request carries (purpose, token, request id,
// fields, values) and what each evaluation gets back, whoever it was read with, however its value is spelled, and
// whichever of the others times out or goes away meanwhile.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { systemRandom } from '../../platform/random.ts';
import type { SourceConnectionConfig } from '../config/schema.ts';
import { createCoalescingReader } from './create-coalescing-reader.ts';
import { createRelayConnector } from './create-relay-connector.ts';
import {
  BINDING,
  connection,
  failure,
  json,
  LOOKUP,
  useConnectorUpstream,
} from './relay-connector-fixture.ts';
import type { SourceLookup, SourceReader } from './source-reader.ts';

const COALESCING: Partial<SourceConnectionConfig> = { bulk_mode: 'rda_in_filter', coalesce_reads: true };
const OTHER_PURPOSE = 'https://p.example/other';

/** What the relay was asked: the headers the audit keeps and the values of the read. */
interface Sent {
  readonly purpose: string | undefined;
  readonly requestId: string | undefined;
  readonly authorization: string | undefined;
  readonly fields: string | null;
  readonly values: string[];
}

const sentOf = (request: IncomingMessage): Sent => {
  const query = new URL(request.url ?? '', 'http://relay').searchParams;
  const single = query.get('national_id');
  return {
    purpose: request.headers['data-purpose'] as string | undefined,
    requestId: request.headers['x-request-id'] as string | undefined,
    authorization: request.headers.authorization,
    fields: query.get('fields'),
    values: single === null ? (query.get('national_id.in') ?? '').split(',') : [single],
  };
};

/** A relay holding `rows`, matching values by exact text, each row answered with the fields asked only. */
const exactTable =
  (rows: readonly Record<string, unknown>[]) => (request: IncomingMessage, response: ServerResponse) => {
    const query = new URL(request.url ?? '', 'http://relay').searchParams;
    const { values } = sentOf(request);
    const fields = (query.get('fields') ?? '').split(',');
    const data = rows
      .filter((row) => values.includes(String(row.national_id)))
      .map((row) =>
        Object.fromEntries(fields.filter((name) => name in row).map((name) => [name, row[name]])),
      );
    json(response, 200, { data, pagination: { has_more: false } });
  };

const TABLE = exactTable(['A', 'B', 'X', 'Y'].map((id) => ({ national_id: id, deceased: false })));

/** A relay whose answer for more than two values holds a record that does not fit its schema: asked in halves. */
const HALVING = (request: IncomingMessage, response: ServerResponse) => {
  const { values } = sentOf(request);
  if (values.length > 2) json(response, 502, { code: 'datasource.row_invalid' });
  else exactTable(values.map((id) => ({ national_id: id, deceased: false })))(request, response);
};

describe('coalesced reads: what each evaluation is read with', () => {
  const upstream = useConnectorUpstream();
  const readers: SourceReader[] = [];
  afterEach(() => {
    for (const reader of readers.splice(0)) reader.close();
  });

  /** A coalescing reader over connections `relay` and `other` (same relay, tokens of their own). */
  const coalescing = (overrides: Partial<SourceConnectionConfig> = {}) => {
    const reader = createCoalescingReader(
      createRelayConnector(
        {
          relay: connection(upstream.port, { ...COALESCING, ...overrides }),
          other: connection(upstream.port, { ...COALESCING, ...overrides }),
        },
        new Map([
          ['relay', 'relay-secret'],
          ['other', 'other-secret'],
        ]),
        { clock: systemClock, random: systemRandom, sleep: async () => {} },
      ),
      () => true,
    );
    readers.push(reader);
    return reader;
  };
  const sent = () => upstream.requests.map(sentOf);
  const lookup = (value: string, changes: Partial<SourceLookup> = {}): SourceLookup => ({
    ...LOOKUP,
    value,
    requestId: `req-${value}`,
    ...changes,
  });

  it('reads each purpose under its own Data-Purpose, and each connection with its own token', async () => {
    upstream.handler = exactTable(
      ['A', 'B', 'C', 'D', 'E', 'F'].map((id) => ({ national_id: id, deceased: false })),
    );
    const reader = coalescing();
    const elsewhere = { ...BINDING, connection: 'other' };
    const asked = [
      lookup('A'),
      lookup('B', { purpose: OTHER_PURPOSE }),
      lookup('C', { binding: elsewhere }),
      lookup('D'),
      lookup('E', { purpose: OTHER_PURPOSE }),
      lookup('F', { binding: elsewhere }),
    ];
    const records = await Promise.all(asked.map((entry) => reader.read(entry)));
    assert.deepEqual(
      records.map((record) => record.row.national_id),
      ['A', 'B', 'C', 'D', 'E', 'F'],
    );
    const requests = sent().sort((a, b) => (a.values[0] ?? '').localeCompare(b.values[0] ?? ''));
    assert.deepEqual(
      requests.map((request) => [request.values, request.purpose, request.authorization, request.requestId]),
      [
        [['A', 'D'], LOOKUP.purpose, 'Bearer relay-secret', 'req-A'],
        [['B', 'E'], OTHER_PURPOSE, 'Bearer relay-secret', 'req-B'],
        [['C', 'F'], LOOKUP.purpose, 'Bearer other-secret', 'req-C'],
      ],
    );
  });

  it('never reads a field an evaluation did not ask for, nor leaves out one it did', async () => {
    upstream.handler = exactTable([
      { national_id: 'A', deceased: false, birth_date: '1990-01-01' },
      { national_id: 'B', deceased: true, birth_date: '1991-01-01' },
    ]);
    const reader = coalescing();
    const narrow = { ...BINDING, fields: ['deceased'] };
    const [a, b, again] = await Promise.all([
      reader.read(lookup('A', { binding: narrow })),
      reader.read(lookup('B')),
      reader.read(lookup('A')),
    ]);
    assert.deepEqual(a.row, { national_id: 'A', deceased: false });
    assert.deepEqual(b.row, { national_id: 'B', deceased: true, birth_date: '1991-01-01' });
    assert.deepEqual(again.row, { national_id: 'A', deceased: false, birth_date: '1990-01-01' });
    assert.deepEqual(
      sent()
        .map((request) => [request.values, request.fields])
        .sort(),
      [
        [['A'], 'deceased,national_id'],
        [['B', 'A'], 'birth_date,deceased,national_id'],
      ],
    );
  });

  it('gives each spelling of a value its own record, never the one read for another spelling', async () => {
    // Distinct subjects whose identifiers differ only by case, Unicode normalisation, width or leading zeros.
    const spellings = ['abc', 'ABC', '\u00e9', 'e\u0301', '\uff21', 'A', '7', '07'];
    upstream.handler = exactTable(
      spellings.map((id, index) => ({ national_id: id, deceased: index % 2 === 0 })),
    );
    const reader = coalescing();
    const records = await Promise.all(
      spellings.map((value, index) => reader.read(lookup(value, { requestId: `req-${index}` }))),
    );
    assert.deepEqual(
      records.map((record) => [record.row.national_id, record.row.deceased]),
      spellings.map((id, index) => [id, index % 2 === 0]),
    );
    assert.equal(sent()[0]?.values.length, spellings.length);
  });

  it('answers a spelling a lenient relay also matches as its single read would: ambiguous, not the other record', async () => {
    // A relay comparing without case: `abc` and `ABC` are two records for either value.
    const rows = [
      { national_id: 'abc', deceased: false },
      { national_id: 'ABC', deceased: true },
    ];
    upstream.handler = (request, response) => {
      const { values } = sentOf(request);
      const folded = values.map((value) => value.toLowerCase());
      const data = rows.filter((row) => folded.includes(row.national_id.toLowerCase()));
      json(response, 200, { data, pagination: { has_more: false } });
    };
    const reader = coalescing();
    const outcomes = await Promise.all(['abc', 'ABC'].map((value) => failure(reader.read(lookup(value)))));
    assert.deepEqual(
      outcomes.map((problem) => problem.code),
      ['evidence.not_available', 'evidence.not_available'],
    );
  });

  /** Holds every request until the test answers it. */
  const holding = () => {
    const held: [IncomingMessage, ServerResponse][] = [];
    upstream.handler = (request, response) => {
      held.push([request, response]);
    };
    return held;
  };
  const arrived = async (held: readonly unknown[], count: number) => {
    while (held.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  /** A deadline that moves to now when its client goes away. */
  const client = (ms: number) => {
    let at = performance.now() + ms;
    return {
      get at() {
        return at;
      },
      hangUp() {
        at = performance.now();
      },
    };
  };

  it("sends a shared read waiting for the connection when one of its evaluations' clients goes away", async () => {
    const held = holding();
    // One request to the relay at a time: the shared read waits for the slot X holds.
    const reader = coalescing({ max_in_flight: 1 });
    const x = reader.read(lookup('X'));
    await arrived(held, 1);
    const gone = client(60_000);
    const a = reader.read(withDeadline(lookup('A'), gone));
    const b = reader.read(withDeadline(lookup('B'), client(60_000)));
    await new Promise((resolve) => setImmediate(resolve));
    gone.hangUp();
    TABLE(...(held[0] as [IncomingMessage, ServerResponse]));
    await arrived(held, 2);
    TABLE(...(held[1] as [IncomingMessage, ServerResponse]));
    assert.equal((await b).row.national_id, 'B');
    await Promise.all([a, x]);
    assert.deepEqual(sent()[1]?.values, ['A', 'B']);
  });

  it('sends no lookup whose client went away while it waited, nor under its request id', async () => {
    const held = holding();
    const reader = coalescing();
    // Both reads the binding may have on their way are out: the next lookups wait.
    const x = reader.read(lookup('X'));
    await arrived(held, 1);
    const y = reader.read(lookup('Y'));
    await arrived(held, 2);
    const gone = client(60_000);
    const a = failure(reader.read(withDeadline(lookup('A'), gone)));
    const b = reader.read(withDeadline(lookup('B'), client(60_000)));
    await new Promise((resolve) => setImmediate(resolve));
    gone.hangUp();
    TABLE(...(held[0] as [IncomingMessage, ServerResponse]));
    await arrived(held, 3);
    TABLE(...(held[2] as [IncomingMessage, ServerResponse]));
    assert.equal((await b).row.national_id, 'B');
    assert.equal((await a).code, 'internal.timeout');
    const third = sent()[2];
    assert.deepEqual([third?.values, third?.requestId], [['B'], 'req-B']);
    TABLE(...(held[1] as [IncomingMessage, ServerResponse]));
    await Promise.all([x, y]);
  });

  it('retries a shared read for the evaluations that still have time when an earlier one has none', async () => {
    const gone = client(60_000);
    let calls = 0;
    upstream.handler = (request, response) => {
      calls++;
      // A's request is answered as the source fails: no time left for A's retry, plenty for B's.
      if (calls > 1) TABLE(request, response);
      else {
        gone.hangUp();
        json(response, 503, { code: 'datasource.unavailable' });
      }
    };
    const reader = coalescing();
    const a = reader.read(withDeadline(lookup('A'), gone));
    const b = reader.read(withDeadline(lookup('B'), client(60_000)));
    assert.equal((await b).row.national_id, 'B');
    await a;
    assert.deepEqual(
      sent().map((request) => request.values),
      [
        ['A', 'B'],
        ['A', 'B'],
      ],
    );
  });

  it('sends each request split off a shared read under the request id of an evaluation it serves', async () => {
    upstream.handler = HALVING;
    const reader = coalescing();
    const records = await Promise.all(['A', 'B', 'C', 'D'].map((value) => reader.read(lookup(value))));
    assert.deepEqual(
      records.map((record) => record.row.national_id),
      ['A', 'B', 'C', 'D'],
    );
    assert.deepEqual(
      sent()
        .map((request) => [request.values, request.requestId])
        .sort(),
      [
        [['A', 'B', 'C', 'D'], 'req-A'],
        [['A', 'B'], 'req-A'],
        [['C', 'D'], 'req-C'],
      ],
    );
  });

  it("tells each batch's request counter only of the requests split off a shared read that serve it", async () => {
    upstream.handler = HALVING;
    const reader = coalescing();
    const counter = () => ({
      sent: 0,
      requestSent() {
        this.sent++;
      },
    });
    const [first, second] = [counter(), counter()];
    await Promise.all([
      reader.read(lookup('A', { requests: first })),
      reader.read(lookup('B', { requests: first })),
      reader.read(lookup('C', { requests: second })),
      reader.read(lookup('D', { requests: second })),
    ]);
    // The request of all four, then the half of each batch's own values.
    assert.deepEqual([first.sent, second.sent], [2, 2]);
  });
});

/** `lookup` with its deadline read from `deadline` at each decision, as an evaluation's is. */
function withDeadline(lookup: SourceLookup, deadline: { readonly at: number }): SourceLookup {
  return {
    ...lookup,
    get deadline() {
      return deadline.at;
    },
  };
}

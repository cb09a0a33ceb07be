// Relay answers that parse but must not be read as the subject's record: more records announced than sent, text
// that is not UTF-8 or not Unicode, a record for another lookup value than the one asked, and answers that say two
// things at once (a key twice, a number beyond a double, `has_more` that is no boolean, a coded body).
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import type { Problem } from '../../platform/problem/problem.ts';
import { auditCodeOf } from './failure-reason.ts';
import { failure, json, LOOKUP, useConnectorUpstream } from './relay-connector-fixture.ts';

const outcome = (problem: Problem) => [problem.status, problem.code, auditCodeOf(problem)];
const INVALID = [503, 'source.unavailable', 'source.invalid_response'];

/** Answers these bytes as the relay's JSON. */
const bytes = (body: Buffer) => (_request: IncomingMessage, response: ServerResponse) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(body);
};

describe('registry_data_api connector: answers that are not the record asked for', () => {
  const upstream = useConnectorUpstream();

  it('reads a single record announced with more to come as several (409), and none with more as invalid', async () => {
    // A relay paging below the limit of 2 still says more records match: which one backs the claim is unknown.
    const reader = upstream.connector();
    upstream.handler = (_request, response) =>
      json(response, 200, {
        data: [{ national_id: 'FAKE-1', deceased: true }],
        pagination: { has_more: true },
      });
    const several = await failure(reader.read(LOOKUP));
    upstream.handler = (_request, response) =>
      json(response, 200, { data: [], pagination: { has_more: true } });
    const none = await failure(reader.read(LOOKUP));
    upstream.handler = (_request, response) =>
      json(response, 200, { data: [{ national_id: 'FAKE-1' }], pagination: { has_more: false } });
    const complete = await reader.read(LOOKUP);
    reader.close();
    assert.deepEqual(outcome(several), [409, 'evidence.not_available', 'target.match_ambiguous']);
    assert.deepEqual(outcome(none), INVALID);
    assert.equal(complete.row.national_id, 'FAKE-1');
  });

  it('refuses an answer that is not UTF-8 rather than read it with replacement characters', async () => {
    const reader = upstream.connector();
    // `José` in Latin-1: read as UTF-8 it became `Jos\uFFFD`, a value no rule could compare rightly.
    upstream.handler = bytes(Buffer.from('{"data":[{"national_id":"FAKE-1","name":"José"}]}', 'latin1'));
    const latin1 = await failure(reader.read(LOOKUP));
    upstream.handler = bytes(Buffer.from('{"data":[{"national_id":"FAKE-1","name":"José"}]}', 'utf8'));
    const utf8 = await reader.read(LOOKUP);
    reader.close();
    assert.deepEqual(outcome(latin1), INVALID);
    assert.equal(utf8.row.name, 'José');
    assert.deepEqual(upstream.sleeps, []);
  });

  it('refuses a record holding a lone surrogate, in a value or a key, at any depth', async () => {
    const reader = upstream.connector();
    const problems: Problem[] = [];
    for (const record of [
      '{"national_id":"FAKE-1","birth_date":"1980-01-01\\ud800"}',
      '{"national_id":"FAKE-1","names":[{"given":"\\udc00"}]}',
      '{"national_id":"FAKE-1","\\ud83d":1}',
    ]) {
      upstream.handler = bytes(Buffer.from(`{"data":[${record}]}`));
      problems.push(await failure(reader.read(LOOKUP)));
    }
    // A pair is a character like any other.
    upstream.handler = bytes(Buffer.from('{"data":[{"national_id":"FAKE-1","name":"\\ud83d\\ude00"}]}'));
    const paired = await reader.read(LOOKUP);
    reader.close();
    for (const problem of problems) assert.deepEqual(outcome(problem), INVALID);
    assert.equal(paired.row.name, '😀');
  });

  it("refuses a single read's record whose lookup field names another value, not another spelling of it", async () => {
    const reader = upstream.connector();
    const answer = (cell: unknown) => (_request: IncomingMessage, response: ServerResponse) =>
      json(response, 200, { data: [{ national_id: cell, deceased: true }] });
    upstream.handler = answer('FAKE-2');
    const other = await failure(reader.read(LOOKUP));
    // The source's own spelling of the value asked (case, a number, an instant of that day) is its record.
    for (const [value, cell] of [
      ['fake-1', 'FAKE-1'],
      ['007', '7'],
      ['1980-01-01', '1980-01-01T00:00:00.000Z'],
      ['FAKE-1', 12],
      ['FAKE-1', undefined],
    ] as const) {
      upstream.handler = answer(cell);
      const record = await reader.read({ ...LOOKUP, value });
      assert.equal(record.row.deceased, true, `${value} answered as ${cell}`);
    }
    reader.close();
    assert.deepEqual(outcome(other), INVALID);
  });

  it('refuses a record whose number names another number than the value asked, alone or in a page of everyone', async () => {
    // A source ignoring the filter on a numeric field answers someone else's record, or a page read as "several".
    const reader = upstream.connector();
    const answer =
      (...cells: unknown[]) =>
      (_request: IncomingMessage, response: ServerResponse) =>
        json(response, 200, { data: cells.map((cell) => ({ national_id: cell, deceased: true })) });
    upstream.handler = answer(1002);
    const other = await failure(reader.read({ ...LOOKUP, value: '1001' }));
    upstream.handler = answer(1002, 1003);
    const page = await failure(reader.read({ ...LOOKUP, value: '1001' }));
    // The same number, however the value spells it, is the record asked for; two of them stay ambiguous.
    for (const [value, cell] of [
      ['1001', 1001],
      ['01001', 1001],
      [' 1e3', 1000],
      ['2.50', 2.5],
      ['1001', '1001.0'],
    ] as const) {
      upstream.handler = answer(cell);
      const record = await reader.read({ ...LOOKUP, value });
      assert.equal(record.row.deceased, true, `${value} answered as ${cell}`);
    }
    upstream.handler = answer(1001, 1001);
    const ambiguous = await failure(reader.read({ ...LOOKUP, value: '1001' }));
    reader.close();
    assert.deepEqual(outcome(other), INVALID);
    assert.deepEqual(outcome(page), INVALID);
    assert.deepEqual(outcome(ambiguous), [409, 'evidence.not_available', 'target.match_ambiguous']);
  });

  it('refuses several records, or one with more to come, for another lookup value: a filter ignored, not ambiguity', async () => {
    // A source (or a proxy dropping the query) that ignores the filter answers a page of everyone: that is no stable
    // "several records for this subject" (409), it is a source answering wrongly.
    const reader = upstream.connector();
    upstream.handler = (_request, response) =>
      json(response, 200, { data: [{ national_id: 'FAKE-7' }, { national_id: 'FAKE-8' }] });
    const page = await failure(reader.read(LOOKUP));
    upstream.handler = (_request, response) =>
      json(response, 200, { data: [{ national_id: 'FAKE-7' }], pagination: { has_more: true } });
    const more = await failure(reader.read(LOOKUP));
    // Two records of the value asked, in the source's spellings of it, stay ambiguous.
    upstream.handler = (_request, response) =>
      json(response, 200, { data: [{ national_id: 'fake-1' }, { national_id: 'FAKE-1' }] });
    const ambiguous = await failure(reader.read(LOOKUP));
    reader.close();
    assert.deepEqual(outcome(page), INVALID);
    assert.deepEqual(outcome(more), INVALID);
    assert.deepEqual(outcome(ambiguous), [409, 'evidence.not_available', 'target.match_ambiguous']);
  });
});

describe('registry_data_api connector: answers that say two things at once', () => {
  const upstream = useConnectorUpstream();

  const refusedAndRead = async (refused: readonly string[], read: readonly string[]) => {
    const reader = upstream.connector();
    const problems: Problem[] = [];
    for (const body of refused) {
      upstream.handler = bytes(Buffer.from(body));
      problems.push(await failure(reader.read(LOOKUP)));
    }
    const records = [];
    for (const body of read) {
      upstream.handler = bytes(Buffer.from(body));
      records.push(await reader.read(LOOKUP));
    }
    reader.close();
    for (const [index, problem] of problems.entries()) {
      assert.deepEqual(outcome(problem), INVALID, refused[index]);
    }
    return records;
  };

  it('refuses an answer holding a key twice, in a record or its envelope, rather than read one of them', async () => {
    // JSON.parse keeps the last: `{"deceased": false, "deceased": true}` was read as deceased.
    const records = await refusedAndRead(
      [
        '{"data":[{"national_id":"FAKE-1","deceased":false,"deceased":true}]}',
        '{"data":[{"national_id":"FAKE-1","deceased":false,"dec\\u0065ased":true}]}',
        '{"data":[{"national_id":"FAKE-2","national_id":"FAKE-1","deceased":true}]}',
        '{"data":[{"national_id":"FAKE-1","names":[{"given":"A","given":"B"}]}]}',
        '{"data":[],"data":[{"national_id":"FAKE-1","deceased":true}]}',
        '{"data":[{"national_id":"FAKE-1"}],"pagination":{"has_more":true,"has_more":false}}',
      ],
      [
        // One key in several objects, or a value spelling a key, is no key held twice.
        '{"data":[{"national_id":"FAKE-1","deceased":true,"parent":{"deceased":false,"national_id":"X"}}]}',
        '{"data":[{"national_id":"FAKE-1","note":"deceased","deceased":true,"q":"\\"deceased\\":"}]}',
      ],
    );
    for (const record of records) assert.equal(record.row.deceased, true);
  });

  it('refuses a record holding a number no double can hold, rather than read it as infinite or null', async () => {
    // `1e400` parses as Infinity, which a result or a rule's input writes as null.
    const [record] = await refusedAndRead(
      [
        '{"data":[{"national_id":"FAKE-1","income":1e400}]}',
        '{"data":[{"national_id":"FAKE-1","incomes":[{"amount":-1e400}]}]}',
      ],
      ['{"data":[{"national_id":"FAKE-1","income":1e308,"zero":-0,"tiny":1e-400}]}'],
    );
    assert.equal(record?.row.income, 1e308);
  });

  it('refuses pagination that is not an object with a boolean has_more, rather than read it as absent', async () => {
    // `"has_more": "true"` was read as "not said", and the one record as the subject's.
    const [record] = await refusedAndRead(
      [
        '{"data":[{"national_id":"FAKE-1"}],"pagination":{"has_more":"true"}}',
        '{"data":[{"national_id":"FAKE-1"}],"pagination":{"has_more":1}}',
        '{"data":[{"national_id":"FAKE-1"}],"pagination":{"has_more":null}}',
        '{"data":[{"national_id":"FAKE-1"}],"pagination":"more"}',
        '{"data":[{"national_id":"FAKE-1"}],"pagination":[true]}',
      ],
      ['{"data":[{"national_id":"FAKE-1"}],"pagination":{"next_cursor":"abc"}}'],
    );
    assert.equal(record?.row.national_id, 'FAKE-1');
  });

  it('refuses a body in a content coding it never asked for, even one that parses as it is', async () => {
    const reader = upstream.connector();
    const coded = (coding: string) => (_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
      response.end('{"data":[{"national_id":"FAKE-1","deceased":true}]}');
    };
    upstream.handler = coded('br');
    const brotli = await failure(reader.read(LOOKUP));
    upstream.handler = coded('Identity');
    const identity = await reader.read(LOOKUP);
    reader.close();
    assert.deepEqual(outcome(brotli), INVALID);
    assert.equal(identity.row.deceased, true);
    assert.equal(upstream.requests[0]?.headers['accept-encoding'], undefined);
  });

  it('refuses a coded body whose length the closing connection gives (no Content-Length, no chunks)', async () => {
    const reader = upstream.connector();
    upstream.handler = (request) =>
      request.socket.end(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: br\r\nconnection: close\r\n\r\n' +
          '{"data":[{"national_id":"FAKE-1","deceased":true}]}',
      );
    const coded = await failure(reader.read(LOOKUP));
    reader.close();
    assert.deepEqual(outcome(coded), INVALID);
  });
});

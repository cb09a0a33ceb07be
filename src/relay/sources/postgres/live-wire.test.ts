import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  backendMessage as backend,
  dataRowMessage as dataRow,
} from '../../../../test/helpers/fake-postgres-backend.ts';
import { decodeDataRow, decodeError, encodeLiveBatch, type WireStatement } from './live-wire.ts';
import { classifyPgError, describePgError } from './read-only-session.ts';

interface Message {
  readonly type: string;
  readonly body: Buffer;
}

/** Splits a frontend byte stream into messages, checking every declared length adds up. */
function messages(buffer: Buffer): Message[] {
  const out: Message[] = [];
  let at = 0;
  while (at < buffer.length) {
    const length = buffer.readInt32BE(at + 1);
    out.push({
      type: String.fromCharCode(buffer[at] as number),
      body: buffer.subarray(at + 5, at + 1 + length),
    });
    at += 1 + length;
  }
  assert.equal(at, buffer.length, 'the message lengths cover the buffer exactly');
  return out;
}

/** A Bind message's parameters as text (null for SQL NULL), checking it binds the statement `name`. */
function bindParams(body: Buffer, name = ''): (string | null)[] {
  assert.equal(body[0], 0, 'unnamed portal');
  assert.equal(body.toString('utf8', 1, 1 + Buffer.byteLength(name) + 1), `${name}\0`, 'the statement');
  let at = 2 + Buffer.byteLength(name);
  assert.equal(body.readInt16BE(at), 0, 'every parameter in text format');
  const count = body.readInt16BE(at + 2);
  const params: (string | null)[] = [];
  at += 4;
  for (let index = 0; index < count; index++) {
    const length = body.readInt32BE(at);
    at += 4;
    params.push(length < 0 ? null : body.toString('utf8', at, at + length));
    at += Math.max(0, length);
  }
  assert.equal(body.readInt16BE(at), 0, 'every result column in text format');
  assert.equal(at + 2, body.length);
  return params;
}

describe('live wire messages', () => {
  const GUARD = "SELECT set_config('transaction_read_only', 'on', true)";
  const unnamed = (text: string) => ({ text, name: '', parse: true });
  /** A batch of one read. */
  const encodeLiveRead = (guard: WireStatement, select: WireStatement, values: readonly unknown[]) =>
    encodeLiveBatch(guard, [{ select, values }]);

  it('a read is the guard and the SELECT, each parsed, bound and executed, then one Sync; lengths add up', () => {
    const sql = 'SELECT "a" FROM "t" WHERE "a" = $1 ORDER BY "a" LIMIT $2';
    const sent = messages(encodeLiveRead(unnamed(GUARD), unnamed(sql), ['x', 11]));
    assert.deepEqual(
      sent.map((message) => message.type),
      ['P', 'B', 'E', 'P', 'B', 'E', 'S'],
      'one implicit transaction: Sync only at the end',
    );
    assert.equal(sent[0]?.body.toString(), `\0${GUARD}\0\0\0`);
    assert.deepEqual(bindParams(sent[1]?.body as Buffer), [], 'the guard has no parameters');
    assert.equal(
      sent[3]?.body.toString(),
      `\0${sql}\0\0\0`,
      'unnamed statement, no declared parameter types',
    );
    assert.deepEqual(bindParams(sent[4]?.body as Buffer), ['x', '11']);
    for (const execute of [sent[2], sent[5]]) {
      assert.deepEqual(Array.from(execute?.body as Buffer), [0, 0, 0, 0, 0], 'unnamed portal, every row');
    }
    assert.equal(sent[6]?.body.length, 0);
  });

  it("a batch is the guard once, then each read's SELECT parsed (or only bound) and executed, then one Sync", () => {
    const sql = 'SELECT "a" FROM "t" WHERE "a" = $1';
    const sent = messages(
      encodeLiveBatch(unnamed(GUARD), [
        { select: { text: sql, name: 'ambit_s', parse: true }, values: ['x'] },
        { select: { text: sql, name: 'ambit_s', parse: false }, values: ['Zoë'] },
        { select: unnamed('SELECT 2'), values: [] },
      ]),
    );
    assert.deepEqual(
      sent.map((message) => message.type).join(''),
      'PBE' + 'PBE' + 'BE' + 'PBE' + 'S',
      'one guard, one implicit transaction for the three reads',
    );
    assert.equal(sent[0]?.body.toString(), `\0${GUARD}\0\0\0`);
    assert.equal(sent[3]?.body.toString(), `ambit_s\0${sql}\0\0\0`);
    assert.deepEqual(bindParams(sent[4]?.body as Buffer, 'ambit_s'), ['x']);
    assert.deepEqual(bindParams(sent[6]?.body as Buffer, 'ambit_s'), ['Zoë']);
    assert.equal(sent[8]?.body.toString(), '\0SELECT 2\0\0\0');
    assert.deepEqual(bindParams(sent[9]?.body as Buffer), []);
  });

  it('prepared statements: a read parses only those it prepares; the others are bound by name', () => {
    const sql = 'SELECT "a" FROM "t" WHERE "a" = $1';
    const guard = { text: GUARD, name: 'ambit_g', parse: false };
    const first = messages(encodeLiveRead(guard, { text: sql, name: 'ambit_s', parse: true }, ['x']));
    assert.deepEqual(
      first.map((message) => message.type),
      ['B', 'E', 'P', 'B', 'E', 'S'],
    );
    assert.deepEqual(bindParams(first[0]?.body as Buffer, 'ambit_g'), []);
    assert.equal(first[2]?.body.toString(), `ambit_s\0${sql}\0\0\0`);
    assert.deepEqual(bindParams(first[3]?.body as Buffer, 'ambit_s'), ['x']);
    const later = messages(encodeLiveRead(guard, { text: sql, name: 'ambit_s', parse: false }, ['Zoë']));
    assert.deepEqual(
      later.map((message) => message.type),
      ['B', 'E', 'B', 'E', 'S'],
      'no Parse: no SQL text is sent again',
    );
    assert.deepEqual(bindParams(later[2]?.body as Buffer, 'ambit_s'), ['Zoë']);
  });

  it('parameters: text measured in bytes, NULL as -1, booleans and numbers as their text', () => {
    const sent = messages(
      encodeLiveRead(unnamed(GUARD), unnamed('SELECT 1'), ['Zoë ✓', null, true, 2.5, -7]),
    );
    assert.deepEqual(bindParams(sent[4]?.body as Buffer), ['Zoë ✓', null, 'true', '2.5', '-7']);
  });

  it('an in-list is an array literal whose elements are quoted and escaped', () => {
    const sent = messages(
      encodeLiveRead(unnamed(GUARD), unnamed('SELECT 1'), [['a', 'b"c', 'd\\e', 'x,y}', 3]]),
    );
    assert.deepEqual(bindParams(sent[4]?.body as Buffer), ['{"a","b\\"c","d\\\\e","x,y}","3"}']);
  });

  it('a data row decodes text (multi-byte included), empty strings and NULLs in order', () => {
    const row = dataRow(['F0424242', null, '', 'Łódź']);
    assert.deepEqual(decodeDataRow(row, 5, row.length), ['F0424242', null, '', 'Łódź']);
  });

  it('an ASCII data row inside a larger buffer decodes only its own cells', () => {
    const row = dataRow(['F0424242', '', null, 'district-07', '-29.993']);
    const before = Buffer.from('Zoë ✓ before');
    const chunk = Buffer.concat([before, row, Buffer.from('Łódź after')]);
    const start = before.length + 5;
    assert.deepEqual(decodeDataRow(chunk, start, start + row.length - 5), [
      'F0424242',
      '',
      null,
      'district-07',
      '-29.993',
    ]);
  });

  it('an error response keeps the SQLSTATE, the unlocalized severity and the message', () => {
    const fields = Buffer.from('SFEHLER\0VERROR\0C22P02\0Minvalid input syntax for type integer\0\0');
    const error = decodeError(backend('E', fields), 5, 5 + fields.length);
    assert.equal(error.code, '22P02');
    assert.equal(error.severity, 'ERROR');
    assert.equal(error.message, 'invalid input syntax for type integer');
    assert.equal(classifyPgError(error), 'invalid_input');
  });

  it('an error response keeps the routine that raised it, so a RAISE with any SQLSTATE is told apart', () => {
    const fields = Buffer.from(
      'SERROR\0VERROR\0CXX000\0Msecret 15001 here\0Fpl_exec.c\0Rexec_stmt_raise\0\0',
    );
    const error = decodeError(backend('E', fields), 5, 5 + fields.length);
    assert.equal(error.routine, 'exec_stmt_raise');
    assert.equal(describePgError(error), 'SQLSTATE XX000 (its message is left out: it may quote a value)');
  });

  it('an error response from a server without the unlocalized severity falls back to the localized one', () => {
    const fields = Buffer.from('SFATAL\0C57P01\0Mterminating connection due to administrator command\0\0');
    const error = decodeError(backend('E', fields), 5, 5 + fields.length);
    assert.equal(error.severity, 'FATAL');
    assert.equal(classifyPgError(error), 'unavailable');
  });
});

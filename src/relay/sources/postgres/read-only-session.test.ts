import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  beginReadOnly,
  classifyPgError,
  describePgError,
  liveGuard,
  noteEarlyCancel,
  qualifiedName,
} from './read-only-session.ts';

const server = (code: string, message = 'boom') =>
  Object.assign(new Error(message), { code, severity: 'ERROR' });

describe('read-only session', () => {
  it('opens every transaction READ ONLY with a local statement timeout, UTC, standard strings and output styles', () => {
    assert.equal(
      beginReadOnly({ query_timeout: 1500 }),
      "BEGIN READ ONLY; SET LOCAL statement_timeout = 1500; SET LOCAL TIME ZONE 'UTC'; SET LOCAL standard_conforming_strings = on; SET LOCAL DateStyle = 'ISO, YMD'; SET LOCAL IntervalStyle = 'postgres'; SET LOCAL extra_float_digits = '3'; SET LOCAL bytea_output = 'hex'",
    );
  });

  it('guards a live read with one statement of transaction-local settings (read only, the timeout in whole ms, output styles, UTC) that releases advisory locks', () => {
    const set = (name: string, value: string) => `pg_catalog.set_config('${name}', '${value}', true)`;
    const output = `${set('DateStyle', 'ISO, YMD')}, ${set('IntervalStyle', 'postgres')}, ${set('extra_float_digits', '3')}, ${set('bytea_output', 'hex')}`;
    assert.equal(
      liveGuard({ query_timeout: 1500.7 }),
      `SELECT ${set('transaction_read_only', 'on')}, ${set('statement_timeout', '1500')}, ${output}, ${set('TimeZone', 'UTC')}, pg_catalog.pg_advisory_unlock_all()`,
    );
    assert.equal(
      liveGuard({ query_timeout: 0.2 }),
      `SELECT ${set('transaction_read_only', 'on')}, ${set('statement_timeout', '1')}, ${output}, ${set('TimeZone', 'UTC')}, pg_catalog.pg_advisory_unlock_all()`,
    );
  });

  it('quotes schema and table names', () => {
    assert.equal(qualifiedName({ schema: 'Reg"istry', name: 'people' }), '"Reg""istry"."people"');
  });

  it('classifies driver and server errors', () => {
    assert.equal(
      classifyPgError(
        Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      ),
      'unavailable',
    );
    assert.equal(classifyPgError(new Error('Connection terminated unexpectedly')), 'unavailable');
    assert.equal(classifyPgError(new Error('Query read timeout')), 'timeout');
    assert.equal(classifyPgError(server('57014')), 'timeout');
    // A cancel that came before query_timeout could end the statement: another session asked for it.
    const early = server('57014');
    noteEarlyCancel(early, performance.now(), { query_timeout: 30_000 });
    assert.equal(classifyPgError(early), 'unavailable');
    const late = server('57014');
    noteEarlyCancel(late, performance.now() - 200, { query_timeout: 100 });
    assert.equal(classifyPgError(late), 'timeout');
    assert.equal(classifyPgError(server('08006')), 'unavailable');
    assert.equal(classifyPgError(server('57P01')), 'unavailable');
    assert.equal(classifyPgError(server('28P01')), 'unavailable');
    assert.equal(classifyPgError(server('53300')), 'unavailable');
    assert.equal(classifyPgError(server('22P02')), 'invalid_input');
    // A data exception raised while a live SELECT ran comes from the data, not from a parameter.
    assert.equal(classifyPgError(Object.assign(server('22003'), { running: false })), 'invalid_input');
    assert.equal(classifyPgError(Object.assign(server('22003'), { running: true })), 'failed');
    assert.equal(classifyPgError(server('42P01')), 'failed');
    assert.equal(classifyPgError(server('25006')), 'failed');
    // A lock wait the database's own lock_timeout ended: the data is held for now, as past query_timeout.
    assert.equal(classifyPgError(server('55P03')), 'timeout');
    // Transient: a standby's conflict with recovery (40001) and a deadlock (40P01) pass when tried again.
    assert.equal(classifyPgError(server('40001')), 'unavailable');
    assert.equal(classifyPgError(server('40P01')), 'unavailable');
  });

  it('describes errors by SQLSTATE or socket code, never with the address', () => {
    assert.equal(
      describePgError(server('42P01', 'relation "x" does not exist')),
      'SQLSTATE 42P01: relation "x" does not exist',
    );
    // Messages that quote a value of the data are left out.
    for (const [code, message] of [
      ['22P02', 'invalid input syntax for type integer: "PIN-4711"'],
      ['22003', 'value "4711000000000" is out of range for type integer'],
      ['P0001', 'person PIN-4711 is not valid'],
    ]) {
      const reason = describePgError(server(code as string, message));
      assert.equal(reason, `SQLSTATE ${code} (its message is left out: it may quote a value)`);
    }
    // A RAISE may name any SQLSTATE: told by the routine that raised it, its message is left out too.
    assert.equal(
      describePgError(
        Object.assign(server('XX000', 'person PIN-4711 is not valid'), { routine: 'exec_stmt_raise' }),
      ),
      'SQLSTATE XX000 (its message is left out: it may quote a value)',
    );
    assert.equal(
      describePgError(
        Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      ),
      'ECONNREFUSED',
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reportStartupError } from '../../src/cli/report-startup-error.ts';
import { ConfigError } from '../../src/platform/config/config-error.ts';
import type { WorkerMessage } from '../../src/relay/cluster/cluster-messages.ts';
import { describeStartFailure, startFailureError } from '../../src/relay/cluster/start-failure.ts';
import { SourceError } from '../../src/relay/sources/source-error.ts';

/** What a report prints and returns for an error. */
function reported(error: unknown): { lines: string[]; status: number } {
  const lines: string[] = [];
  const status = reportStartupError(error, (line) => lines.push(line));
  return { lines, status };
}

/** The error as the primary rebuilds it from the worker's message, sent as cluster sends it (JSON). */
function throughChannel(error: unknown): Error {
  const sent: WorkerMessage = { kind: 'ambit:failed', ...describeStartFailure(error) };
  const received = JSON.parse(JSON.stringify(sent)) as WorkerMessage;
  assert.equal(received.kind, 'ambit:failed');
  return startFailureError(received);
}

describe("a worker's failed start, reported by the primary", () => {
  const cases: [string, unknown][] = [
    [
      'a source that failed to load',
      new SourceError({
        tableId: 'people_table',
        code: 'ingest.type_mismatch',
        detail: 'the string is not a date (YYYY-MM-DD)',
        row: 2,
        column: 'born',
        cause: new Error('inner'),
      }),
    ],
    [
      'a source error located in a sheet cell',
      new SourceError({
        tableId: 'sheet_table',
        code: 'ingest.parse_error',
        detail: 'not a number',
        cell: 'C7',
      }),
    ],
    [
      'a config problem met while starting',
      new ConfigError([
        { path: 'audit.path', code: 'audit.chain_invalid', message: 'the last audit record does not verify' },
        { path: '', code: 'config.parse_error', message: 'a second issue' },
      ]),
    ],
    [
      'a listener that could not bind',
      Object.assign(new Error('bind EADDRINUSE 127.0.0.1:4242'), {
        code: 'EADDRINUSE',
        syscall: 'bind',
        address: '127.0.0.1',
        port: 4242,
      }),
    ],
    ['any other error', new Error('worker 1 did not start: the config changed')],
  ];
  for (const [name, error] of cases) {
    it(`says ${name} as one process does, with the same status`, () => {
      assert.deepEqual(reported(throughChannel(error)), reported(error));
    });
  }

  it('keeps the source error fields, not only its message', () => {
    const rebuilt = throughChannel(
      new SourceError({ tableId: 't', code: 'ingest.missing_column', detail: 'no column', column: 'x' }),
    );
    assert.ok(rebuilt instanceof SourceError);
    assert.equal(rebuilt.code, 'ingest.missing_column');
    assert.equal(rebuilt.tableId, 't');
    assert.equal(rebuilt.column, 'x');
    assert.equal(rebuilt.row, undefined);
  });
});

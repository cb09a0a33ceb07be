// The verifier of the error-table tests (verifier contract §2.12): test callers over a fake upstream that counts
// every request and answers as each test sets, so a test can show a denial happened before any source read.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

export const ALIVE = {
  type: 'person',
  identifiers: [
    { scheme: 'national_id', value: 'FAKE-1' },
    { scheme: 'person_id', value: 'per-1' },
  ],
};
export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export interface ErrorTable {
  readonly verifier: TestVerifier;
  /** What the upstream was asked since the test began. */
  readonly requests: IncomingMessage[];
  /** The retry waits the verifier took since the test began. */
  readonly sleeps: number[];
  /** Answers upstream requests: one record (alive) unless a test sets another. */
  handler: Handler;
  /** Asserts the problem and that the upstream saw no request at all. */
  deniedBeforeReads(
    body: unknown,
    status: number,
    code: string,
    options?: Parameters<TestVerifier['evaluate']>[1],
  ): Promise<Record<string, unknown>>;
}

/** Starts the verifier and its upstream before the file's tests, stops them after; resets per test. */
export function useErrorTable(): ErrorTable {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  const table: ErrorTable = {
    get verifier() {
      return verifier;
    },
    requests: [],
    sleeps: [],
    handler: () => {},
    async deniedBeforeReads(body, status, code, options = {}) {
      const response = await verifier.evaluate(body, options);
      const problem = assertProblem(response, status, code);
      assert.equal(table.requests.length, 0, `${code}: no source read happens`);
      return problem;
    },
  };
  before(async () => {
    upstream = await startFakeUpstream((request, response) => {
      table.requests.push(request);
      table.handler(request, response);
    });
    verifier = await startTestVerifier({
      relays: { civil: upstream.url, social: upstream.url },
      deps: {
        sleep: async (ms) => {
          table.sleeps.push(ms);
        },
      },
    });
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });
  beforeEach(() => {
    table.requests.length = 0;
    table.sleeps.length = 0;
    table.handler = (_request, response) => json(response, 200, { data: [{ deceased: false }] });
  });
  return table;
}

// A verifier over a fake civil registry that holds the first read of subject FAKE-HELD until the test answers it
// (every other read is answered at once), listening on a real port, and a batch sent on a connection of its own that
// the test can close before the answer: the set-up of the tests of batches whose client went away.
import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before } from 'node:test';
import { answerLivingPerson, type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import {
  CALLER_KEYS,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
} from '../helpers/verifier-harness.ts';

export interface HeldBatchSetup {
  readonly verifier: TestVerifier;
  /** The held read's response, once it arrived. */
  readonly held: ServerResponse[];
  /** Sends a batch with `headers` on a connection of its own; the caller destroys the socket to hang up. */
  sendBatch(body: unknown, headers?: Readonly<Record<string, string>>): Socket;
  close(): Promise<void>;
}

export const batchItem = (id: string) => ({
  target: { type: 'person', identifiers: [{ scheme: 'national_id', value: id }] },
});

export async function startHeldBatchSetup(): Promise<HeldBatchSetup> {
  const held: ServerResponse[] = [];
  const upstream: FakeUpstream = await startFakeUpstream((request, response) => {
    const id = new URL(request.url ?? '', 'http://x').searchParams.get('national_id') ?? '';
    if (id === 'FAKE-HELD' && held.length === 0) held.push(response);
    else answerLivingPerson(response, id);
  });
  const verifier = await startTestVerifier({
    relays: { civil: upstream.url },
    // Far longer than the tests: nothing is answered by its time-out.
    edit: (text) => text.replace('  bind: 127.0.0.1:0\n', '  bind: 127.0.0.1:0\n  request_timeout: 20s\n'),
  });
  const address = await verifier.verifier.app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  return {
    verifier,
    held,
    sendBatch(body, headers = {}) {
      const text = JSON.stringify(body);
      const extra = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `POST /v1/batch-evaluations HTTP/1.1\r\nhost: verifier\r\ncontent-type: application/json\r\nx-api-key: ${CALLER_KEYS.full}\r\ndata-purpose: ${EVIDENCE_PURPOSE}\r\n${extra}content-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
      return socket;
    },
    async close() {
      for (const response of held) response.destroy();
      await verifier.close();
      await upstream.close();
    },
  };
}

/** Starts the set-up before the suite's tests and closes it after; its members are read once it has started. */
export function useHeldBatchSetup(): HeldBatchSetup {
  let setup: HeldBatchSetup | undefined;
  before(async () => {
    setup = await startHeldBatchSetup();
  });
  after(() => setup?.close());
  const started = () => {
    if (setup === undefined) throw new Error('the held batch set-up has not started');
    return setup;
  };
  return {
    get verifier() {
      return started().verifier;
    },
    get held() {
      return started().held;
    },
    sendBatch: (body, headers) => started().sendBatch(body, headers),
    close: () => started().close(),
  };
}

// A node:http server standing in for the relays a verifier reads, on a free loopback port.
import { createServer, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUpstream {
  /** `http://127.0.0.1:<port>`, for a test config's `base_url`. */
  readonly url: string;
  /** Closes the server and every connection to it, idle or not. */
  close(): Promise<void>;
}

export async function startFakeUpstream(handler: RequestListener): Promise<FakeUpstream> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A relay's answer of one living person's record (`national_id`, `deceased: false`), as the civil registry serves it. */
export function answerLivingPerson(response: ServerResponse, id: string): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({ data: [{ national_id: id, deceased: false }], pagination: { has_more: false } }),
  );
}

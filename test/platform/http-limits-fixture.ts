// Shared by the HTTP bootstrap tests: demo paths, exact-size JSON bodies, a demo relay and a listening app.
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { listenLocal } from '../helpers/http-checks.ts';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

export const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';
export const SCHEMA = '/v1/datasets/social_protection/entities/households/schema';

/** A JSON object body of exactly `bytes` bytes. */
export function jsonOfSize(bytes: number): string {
  const shell = '{"pad":""}';
  return `{"pad":"${'x'.repeat(bytes - shell.length)}"}`;
}

/** Starts the demo relay before the suite's tests (listening on a loopback port with `listen`), closes it after. */
export function useDemoRelay(options: { listen?: boolean } = {}) {
  let relay: TestRelay;
  let port = 0;
  before(async () => {
    relay = await startDemoRelay();
    if (options.listen) port = await listenLocal(relay.app);
  });
  after(() => relay.close());
  return {
    get relay() {
      return relay;
    },
    /** The loopback port, with `listen`. */
    get port() {
      return port;
    },
  };
}

/** Listens with `app` on a loopback port before the suite's tests, closes it after. */
export function useListening(app: FastifyInstance) {
  let port = 0;
  before(async () => {
    port = await listenLocal(app);
  });
  after(() => app.close());
  return {
    get port() {
      return port;
    },
  };
}

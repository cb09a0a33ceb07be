// Starts a relay listener: loads the sources, listens, and reports the bound address.
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/log.ts';
import type { Random } from '../platform/random.ts';
import { createRelayApp, type RelayApp } from './app.ts';
import type { LoadedRelayConfig } from './config/load-relay-config.ts';

export interface RunningRelay {
  readonly relay: RelayApp;
  readonly url: string;
  close(): Promise<void>;
}

export function splitBind(bind: string): { host: string; port: number } {
  const colon = bind.lastIndexOf(':');
  return { host: bind.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(bind.slice(colon + 1)) };
}

/** Listens at once (so /ready answers 503 while loading) and resolves when every source is loaded. */
export async function startRelay(
  loaded: LoadedRelayConfig,
  deps: { logger: Logger; clock: Clock; random: Random },
  bind = loaded.config.server.bind,
): Promise<RunningRelay> {
  const relay = createRelayApp(loaded, deps);
  const { host, port } = splitBind(bind);
  try {
    await relay.app.listen({ host, port });
    await relay.loaded;
  } catch (error) {
    await relay.close();
    throw error;
  }
  const address = relay.app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { relay, url: `http://${urlHost}:${actualPort}`, close: () => relay.close() };
}

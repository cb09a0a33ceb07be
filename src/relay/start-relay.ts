// Starts a relay's listeners (public, and admin when `server.admin_bind` is set): loads the sources, listens,
// and reports the bound addresses.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/log.ts';
import type { Random } from '../platform/random.ts';
import { untilAborted } from '../platform/until-aborted.ts';
import { createRelayApp, type RelayApp, type RelayAppOptions } from './app.ts';
import type { LoadedRelayConfig } from './config/load-relay-config.ts';

export interface RunningRelay {
  readonly relay: RelayApp;
  readonly url: string;
  /** The admin listener's URL, when `server.admin_bind` is set. */
  readonly adminUrl: string | undefined;
  close(): Promise<void>;
}

export function splitBind(bind: string): { host: string; port: number } {
  const colon = bind.lastIndexOf(':');
  return { host: bind.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(bind.slice(colon + 1)) };
}

export interface StartRelayOptions extends RelayAppOptions {
  /**
   * Stops the start (SIGINT or SIGTERM while loading): the listeners, audit sink and pools are closed and the start
   * rejects with the signal's reason. A load in progress is not cancelled: the caller ends the process.
   */
  readonly signal?: AbortSignal;
}

/**
 * Listens at once (so /ready answers 503 while loading) and resolves when every source is loaded, or as soon as a
 * table waits for its unreachable database (it keeps loading in the background). With `loadBeforeListening` it
 * listens only once every source is loaded, a wait for a database included: cluster workers share the port and a
 * worker takes connections from the moment it listens, so a restarted one would answer 503 to requests that the
 * other workers can serve.
 */
export async function startRelay(
  loaded: LoadedRelayConfig,
  deps: { logger: Logger; clock: Clock; random: Random },
  bind = loaded.config.server.bind,
  options: StartRelayOptions = {},
): Promise<RunningRelay> {
  const { signal, ...appOptions } = options;
  signal?.throwIfAborted();
  const relay = createRelayApp(loaded, deps, appOptions);
  try {
    if (options.loadBeforeListening) await untilAborted(relay.loaded, signal);
    // Listening takes no time: a signal meanwhile is seen by the wait below.
    const url = await listenOn(relay.app, bind);
    const adminBind = loaded.config.server.admin_bind;
    const adminUrl =
      relay.admin && adminBind !== undefined ? await listenOn(relay.admin, adminBind) : undefined;
    // A database that is down does not stop the start: /ready answers 503 until its tables load.
    await untilAborted(Promise.race([relay.loaded, relay.waitingForSources]), signal);
    return { relay, url, adminUrl, close: () => relay.close() };
  } catch (error) {
    await relay.close();
    throw error;
  }
}

/** Listens on `host:port` and returns the URL actually bound (port 0 picks a free one). */
export async function listenOn(app: FastifyInstance, bind: string): Promise<string> {
  const { host, port } = splitBind(bind);
  await app.listen({ host, port });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return `http://${urlHost}:${actualPort}`;
}

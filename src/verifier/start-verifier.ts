// Starts the verifier's listeners (public, and admin when `server.admin_bind` is set) and reports their addresses.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/log.ts';
import type { Random } from '../platform/random.ts';
import { untilAborted } from '../platform/until-aborted.ts';
import { createVerifierApp, type VerifierApp } from './app.ts';
import type { LoadedVerifierConfig } from './config/load-verifier-config.ts';

export interface RunningVerifier {
  readonly verifier: VerifierApp;
  readonly url: string;
  /** The admin listener's URL, when one is configured. */
  readonly adminUrl: string | undefined;
  close(): Promise<void>;
}

export async function startVerifier(
  loaded: LoadedVerifierConfig,
  deps: { logger: Logger; clock: Clock; random: Random },
  bind = loaded.config.server.bind,
  /** Stops the start (SIGINT or SIGTERM meanwhile): what was opened is closed, and the start rejects. */
  signal?: AbortSignal,
): Promise<RunningVerifier> {
  signal?.throwIfAborted();
  // On failure createVerifierApp stops what it started itself; from here on, close() does.
  const verifier = createVerifierApp(loaded, deps);
  try {
    // The state store gets its first chance to connect and migrate before traffic arrives; when it cannot, the
    // verifier still starts, reports itself not ready and answers 503 where state is needed until it can.
    await untilAborted(verifier.runtime.store.prepare(), signal);
    const url = await listenOn(verifier.app, bind);
    const adminBind = loaded.config.server.admin_bind;
    const adminUrl =
      verifier.admin && adminBind !== undefined ? await listenOn(verifier.admin, adminBind) : undefined;
    signal?.throwIfAborted();
    return { verifier, url, adminUrl, close: () => verifier.close() };
  } catch (error) {
    await verifier.close();
    throw error;
  }
}

async function listenOn(app: FastifyInstance, bind: string): Promise<string> {
  const colon = bind.lastIndexOf(':');
  const host = bind.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(bind.slice(colon + 1));
  await app.listen({ host, port });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return `http://${urlHost}:${actualPort}`;
}

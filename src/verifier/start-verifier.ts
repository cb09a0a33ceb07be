// Starts a verifier listener and reports the bound address.
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/log.ts';
import type { Random } from '../platform/random.ts';
import { createVerifierApp, type VerifierApp } from './app.ts';
import type { LoadedVerifierConfig } from './config/load-verifier-config.ts';

export interface RunningVerifier {
  readonly verifier: VerifierApp;
  readonly url: string;
  close(): Promise<void>;
}

export async function startVerifier(
  loaded: LoadedVerifierConfig,
  deps: { logger: Logger; clock: Clock; random: Random },
  bind = loaded.config.server.bind,
): Promise<RunningVerifier> {
  const verifier = createVerifierApp(loaded, deps);
  const colon = bind.lastIndexOf(':');
  const host = bind.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(bind.slice(colon + 1));
  try {
    await verifier.app.listen({ host, port });
  } catch (error) {
    await verifier.close();
    throw error;
  }
  const address = verifier.app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { verifier, url: `http://${urlHost}:${actualPort}`, close: () => verifier.close() };
}

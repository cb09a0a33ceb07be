// Where the demo relay will listen, fixed before its config loads: `catalog.base_url` (links, the OpenAPI
// `servers`) has to name the address actually bound, which AMBIT_RELAY_BIND may move.
import { createServer } from 'node:net';
import { isBindAddress } from '../platform/config/bind-address.ts';
import { splitBind } from '../relay/start-relay.ts';

/** demo/relay.yaml's own default for `server.bind`. */
const DEFAULT_RELAY_BIND = '127.0.0.1:4242';

/**
 * The variables demo/relay.yaml reads for its bind and base URL. Port 0 (any free port) is resolved here to a
 * port free now, so the base URL can name it; a malformed bind is left for the config check to report.
 */
export async function demoRelayAddressEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<Record<string, string>> {
  const bind = env.AMBIT_RELAY_BIND || DEFAULT_RELAY_BIND;
  if (!isBindAddress(bind)) return {};
  const { host, port } = splitBind(bind);
  const actualPort = port === 0 ? await freePort(host) : port;
  const address = `${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
  return { AMBIT_RELAY_BIND: address, AMBIT_DEMO_RELAY_BASE_URL: `http://${address}` };
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host, port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The URL that reaches a listener from this machine: one bound to every interface (0.0.0.0, ::) on loopback. */
export function localUrl(url: string): string {
  return url
    .replace(/^http:\/\/0\.0\.0\.0:/, 'http://127.0.0.1:')
    .replace(/^http:\/\/\[::\]:/, 'http://[::1]:');
}

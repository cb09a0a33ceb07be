// Outbound HTTP for source reads: every resolved address is checked before connecting (DNS-pinned SSRF guard),
// redirects are never followed, and bodies and attempts are bounded.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type AddressPolicy, addressDenial } from './classify-address.ts';

export interface HttpRequest {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export type TransportFailureKind = 'timeout' | 'network' | 'address_denied' | 'too_large';

/** A request that got no usable response; `kind` says whether a retry can help. */
export class TransportError extends Error {
  readonly kind: TransportFailureKind;
  constructor(kind: TransportFailureKind, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'TransportError';
    this.kind = kind;
  }
}

export interface HttpTransport {
  send(request: HttpRequest): Promise<HttpResponse>;
  close(): void;
}

export const MAX_SOURCE_RESPONSE_BYTES = 1024 * 1024;

export function createHttpTransport(policy: AddressPolicy, options: { maxSockets: number }): HttpTransport {
  const lookup = guardedLookup(policy);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, lookup };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };

  return {
    send(request) {
      const host = request.url.hostname.replace(/^\[|\]$/g, '');
      // Node skips `lookup` for IP literals, so those are checked here.
      const denial = isIP(host) ? addressDenial(host, policy) : undefined;
      if (denial) return Promise.reject(new TransportError('address_denied', `${host}: ${denial}`));
      const secure = request.url.protocol === 'https:';
      return new Promise((resolve, reject) => {
        const req = (secure ? httpsRequest : httpRequest)(
          request.url,
          { method: 'GET', headers: request.headers, agent: secure ? agents.https : agents.http },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > MAX_SOURCE_RESPONSE_BYTES) {
                req.destroy(new TransportError('too_large', 'the source response is larger than 1 MiB'));
                return;
              }
              chunks.push(chunk);
            });
            res.on('end', () => {
              clearTimeout(timer);
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
            });
            res.on('error', (error) => req.destroy(error));
          },
        );
        const timer = setTimeout(() => {
          req.destroy(new TransportError('timeout', `no complete response within ${request.timeoutMs}ms`));
        }, request.timeoutMs);
        req.on('error', (error) => {
          clearTimeout(timer);
          reject(error instanceof TransportError ? error : classify(error));
        });
        req.end();
      });
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function classify(error: Error): TransportError {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof TransportError) return cause;
  return new TransportError('network', error.message, error);
}

/** Resolves every address and refuses the connection when any of them is not allowed (no partial pinning). */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const list = addresses as LookupAddress[];
      for (const entry of list) {
        const denial = addressDenial(entry.address, policy);
        if (denial) {
          const refused = new TransportError(
            'address_denied',
            `${hostname} resolves to ${entry.address}: ${denial}`,
          );
          callback(refused as NodeJS.ErrnoException, '', 0);
          return;
        }
      }
      if (options.all) {
        (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, list);
        return;
      }
      const first = list[0];
      if (!first) {
        callback(new Error(`${hostname} has no address`) as NodeJS.ErrnoException, '', 0);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}

// Outbound HTTP for source reads: every resolved address is checked before connecting (DNS-pinned SSRF guard),
// redirects are never followed, no proxy from the environment is used (the guard would judge the proxy, not the
// source), certificates are always verified, and bodies and attempts are bounded.
//
// One undici pool per connection, driven through `dispatch` with a handler: a read is one small JSON answer, and
// node:http's ClientRequest/IncomingMessage streams, or undici's own `request()` body stream, cost more per read
// than the rest of the connector.
import { AssertionError } from 'node:assert';
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { type Dispatcher, errors, Pool } from 'undici';
import { type AddressPolicy, connectDenial } from './classify-address.ts';
import { ResponseBody } from './response-body.ts';

export interface HttpRequest {
  /** Path and query on the transport's origin, e.g. `/v1/datasets/d/entities/e/records?id=1`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** For the whole attempt: waiting for a socket, the request, and the complete response. */
  readonly timeoutMs: number;
  /** Given the means to drop the exchange before it ends: it then fails as timed out, its socket closed. */
  readonly cancellable?: Cancellable | undefined;
}

/** Filled in by `send`: calling `cancel` drops the exchange (no effect once it has ended). */
export interface Cancellable {
  cancel: (() => void) | undefined;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export type TransportFailureKind =
  | 'timeout'
  | 'network'
  | 'address_denied'
  | 'certificate_refused'
  | 'host_not_found'
  | 'too_large'
  | 'invalid_request'
  | 'protocol_error';

/** A request that got no usable response; `kind` says whether a retry can help. */
export class TransportError extends Error {
  readonly kind: TransportFailureKind;
  /**
   * The connection broke after the request was written and before any answer, on a socket that had answered before
   * (or that cannot be told apart from one): a kept-alive socket the source closed while it lay idle. Sending again
   * on a fresh socket is no retry of a failed source.
   */
  readonly stale: boolean;
  constructor(kind: TransportFailureKind, message: string, cause?: unknown, stale = false) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'TransportError';
    this.kind = kind;
    this.stale = stale;
  }
}

export interface HttpTransport {
  send(request: HttpRequest): Promise<HttpResponse>;
  close(): void;
}

export const MAX_SOURCE_RESPONSE_BYTES = 1024 * 1024;

/** Resolves a host name to all its addresses (`dns.lookup` with `all: true`); injected by tests. */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface HttpTransportOptions {
  readonly maxSockets: number;
  readonly resolve?: ResolveAll;
}

/**
 * One origin (scheme, host, port of `baseUrl`) over at most `maxSockets` kept-alive sockets. The address check runs
 * where an address is chosen: once here for an IP literal (it cannot change), and for a host name on every new
 * socket, through the connect `lookup` (each connect resolves again); never per request on a reused socket.
 */
export function createHttpTransport(
  baseUrl: string,
  policy: AddressPolicy,
  options: HttpTransportOptions,
): HttpTransport {
  const origin = new URL(baseUrl);
  const host = origin.hostname.replace(/^\[|\]$/g, '');
  // Name resolution is skipped for IP literals, so those are judged here.
  const literalDenial = isIP(host) ? connectDenial(host, origin.protocol, policy) : undefined;
  const pool = new Pool(origin.origin, {
    connections: options.maxSockets,
    connect: {
      lookup: guardedLookup(origin.protocol, policy, options.resolve ?? dnsLookup),
      // Set here, NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn certificate checks off: the bearer token would go to
      // whoever answers. A private CA is added with NODE_EXTRA_CA_CERTS instead.
      rejectUnauthorized: true,
    },
    // The attempt's own timer bounds the whole exchange.
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  return {
    send(request) {
      if (literalDenial) {
        return Promise.reject(new TransportError('address_denied', `${host}: ${literalDenial}`));
      }
      const unsendable = unsendableHeader(request.headers);
      if (unsendable !== undefined) {
        // undici would refuse it too, but only after taking a connection slot it then never gives back.
        return Promise.reject(
          new TransportError(
            'invalid_request',
            `the ${unsendable} header holds a character HTTP cannot carry`,
          ),
        );
      }
      return new Promise((resolve, reject) => {
        const exchange = new Exchange(request.timeoutMs, resolve, reject);
        if (request.cancellable) request.cancellable.cancel = () => exchange.cancel();
        pool.dispatch({ path: request.path, method: 'GET', headers: request.headers }, exchange);
      });
    },
    close() {
      pool.destroy().catch(() => {});
    },
  };
}

/** The statuses the connector retries (create-relay-connector.ts), never reading their bodies. */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

// What undici accepts in a header value (tab, visible ASCII and space, obs-text); anything else it refuses.
const UNSENDABLE_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** The name of the first header whose value cannot be sent as it is (the value itself is never echoed). */
function unsendableHeader(headers: Readonly<Record<string, string>>): string | undefined {
  for (const name in headers) {
    if (UNSENDABLE_HEADER_VALUE.test(headers[name] as string)) return name;
  }
  return undefined;
}

/** One request's response handler: collects the body, enforces the size and time limits, settles once. */
class Exchange implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly body = new ResponseBody(MAX_SOURCE_RESPONSE_BYTES);
  private settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly resolve: (response: HttpResponse) => void;
  private readonly reject: (error: TransportError) => void;

  constructor(
    timeoutMs: number,
    resolve: (response: HttpResponse) => void,
    reject: (error: TransportError) => void,
  ) {
    this.resolve = resolve;
    this.reject = reject;
    this.timer = setTimeout(() => {
      this.fail(new TransportError('timeout', `no complete response within ${timeoutMs}ms`));
    }, timeoutMs);
  }

  /** Dropped by its caller, whose answer is no longer wanted; before it was sent, it never is. */
  cancel(): void {
    this.fail(new TransportError('timeout', 'dropped before the response ended'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Timed out while waiting for a socket: the request is dropped before it is sent.
    if (this.settled) controller.abort(new TransportError('timeout', 'timed out before it was sent'));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // A busy source's answer is retried whatever it says: its body (a proxy's error page, say) is not kept, so
    // that its size cannot turn a retryable answer into a final `too_large`.
    if (RETRIED_STATUSES.has(this.status)) return;
    if (!this.body.push(chunk)) {
      this.fail(new TransportError('too_large', 'the source response is larger than 1 MiB'));
    }
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve({ status: this.status, headers: this.headers, body: this.body.bytes() });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  /** Settles with the failure and drops the exchange (its socket is closed, not reused). */
  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    // Written (a socket was given) and unanswered: the socket may have gone stale.
    const unanswered = this.controller !== undefined && this.status === 0;
    const failure = error instanceof TransportError ? error : classify(error, unanswered);
    if (this.controller && !this.controller.aborted) this.controller.abort(failure);
    this.reject(failure);
  }
}

function classify(error: Error, unanswered: boolean): TransportError {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof TransportError) return cause;
  if (breaksProtocol(error)) return new TransportError('protocol_error', error.message, error);
  const kind = failureKindOf((error as { code?: unknown }).code);
  if (kind !== 'network') return new TransportError(kind, error.message, error);
  return new TransportError('network', error.message, error, unanswered && mayBeStale(error));
}

/**
 * Certificate checks the TLS handshake fails (Node's names for OpenSSL's verify errors, and its own host name check):
 * the same certificate is presented to the next attempt, so only its owner or the configuration can mend them.
 */
const CERTIFICATE_REFUSALS = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * TLS handshakes that meet no TLS Node accepts: an answer that is not TLS at all (an https base URL on a port that
 * speaks plain HTTP), or a source offering only protocol versions Node refuses. The next attempt meets the same port.
 */
const TLS_MISMATCHES = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_UNSUPPORTED_PROTOCOL',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
]);

/**
 * The kind of a connection failure by its error code. A name that does not exist (ENOTFOUND: the resolver's
 * answer, not its silence) stays so for the next attempt; a resolver that cannot answer for now (EAI_AGAIN), a
 * refused or reset connection may pass, and are `network`.
 */
export function failureKindOf(code: unknown): TransportFailureKind {
  if (typeof code !== 'string') return 'network';
  if (CERTIFICATE_REFUSALS.has(code)) return 'certificate_refused';
  if (TLS_MISMATCHES.has(code)) return 'protocol_error';
  return code === 'ENOTFOUND' ? 'host_not_found' : 'network';
}

/** undici's messages for a response it refuses before its headers reach the handler. */
const ANSWERED_REFUSALS = new Set(['bad response', 'bad upgrade']);

/**
 * An answer HTTP/1.1 does not allow: not HTTP, an interim (100) or upgrade (101) answer never asked for, lengths
 * that contradict each other, a header block past the limit, a status code below 100 (which trips an assertion
 * of undici's parser). The source answers so again: not retried. A connection cut before the answer ends is no
 * such answer (`other side closed`), and may pass.
 */
function breaksProtocol(error: Error): boolean {
  return (
    error instanceof errors.HTTPParserError ||
    error instanceof AssertionError ||
    error instanceof errors.HeadersOverflowError ||
    error instanceof errors.ResponseContentLengthMismatchError ||
    (error instanceof errors.SocketError && ANSWERED_REFUSALS.has(error.message))
  );
}

/**
 * Whether a connection that broke unanswered may have been a reused one. undici tells how much the socket had read
 * when the source closed it: nothing means it was fresh, closed on this very request. A reset carries no such
 * count, so it may always be stale (at most one more request).
 */
function mayBeStale(error: Error): boolean {
  const socket = (error as { socket?: { bytesRead?: unknown } }).socket;
  if (socket !== undefined) return typeof socket.bytesRead === 'number' && socket.bytesRead > 0;
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * Resolves every address and refuses the connection when any of them is not allowed over `protocol` (no partial
 * pinning): a name may resolve anywhere, so an http connection to a public address is refused here too.
 */
function guardedLookup(protocol: string, policy: AddressPolicy, resolve: ResolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { family: options.family, hints: options.hints, all: true }, (error, list) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      for (const entry of list) {
        const denial = connectDenial(entry.address, protocol, policy);
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

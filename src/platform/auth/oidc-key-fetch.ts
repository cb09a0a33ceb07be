// Fetching an issuer's discovery document or JWKS: bounded in size and time, failures described safely for logs.

const MAX_DOCUMENT_BYTES = 1024 * 1024;

/**
 * A failed fetch, described by what is safe to log: the URL without its query, a status or error code, and for a
 * discovery document whose `issuer` is refused, that issuer (a public name, shortened).
 */
export class KeyFetchError extends Error {
  readonly url: string;
  readonly reason: string;
  readonly status: number | undefined;
  readonly discoveredIssuer: string | undefined;

  constructor(
    url: string,
    reason: string,
    message: string,
    options?: { status?: number; cause?: unknown; discoveredIssuer?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KeyFetchError';
    this.url = url;
    this.reason = reason;
    this.status = options?.status;
    this.discoveredIssuer = options?.discoveredIssuer?.slice(0, MAX_SHOWN_ISSUER);
  }
}

const MAX_SHOWN_ISSUER = 256;

/**
 * A JSON document from the issuer: no redirect, at most 1 MiB, within `timeoutMs` from the request to the last byte;
 * else a KeyFetchError. The deadline is kept here, not left to the fetch signal alone: Node's fetch can lose the abort
 * for a body still arriving once the request behind the response was garbage-collected, and a body dripping a byte at
 * a time would then be read for as long as the issuer (or anyone between) cares to send it.
 */
export async function fetchJson(
  fetchFn: typeof fetch,
  url: string,
  what: string,
  timeoutMs: number,
): Promise<unknown> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const late = new KeyFetchError(url, 'timeout', `${what} ${url} took longer than ${timeoutMs} ms`);
      controller.abort(late);
      reject(late);
    }, timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([fetchWithin(fetchFn, url, what, controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function fetchWithin(
  fetchFn: typeof fetch,
  url: string,
  what: string,
  signal: AbortSignal,
): Promise<unknown> {
  try {
    const response = await fetchFn(url, {
      headers: { accept: 'application/json' },
      // A redirect could lead off the https origin the configuration was checked against.
      redirect: 'error',
      signal,
    });
    if (!response.ok) {
      void response.body?.cancel().catch(() => {});
      throw new KeyFetchError(url, 'http_status', `${what} ${url} answered HTTP ${response.status}`, {
        status: response.status,
      });
    }
    const text = await readLimited(response, url, what, signal);
    try {
      return JSON.parse(text) as unknown;
    } catch (cause) {
      throw new KeyFetchError(url, 'not_json', `${what} ${url} is not JSON`, { cause });
    }
  } catch (error) {
    if (error instanceof KeyFetchError) throw error;
    if (signal.aborted && signal.reason instanceof KeyFetchError) throw signal.reason;
    throw new KeyFetchError(url, fetchErrorCode(error), `${what} ${url} could not be fetched`, {
      cause: error,
    });
  }
}

/**
 * The body as text, read in chunks and abandoned once it passes MAX_DOCUMENT_BYTES (counted in bytes) or `signal`
 * aborts (the body is then cancelled, which closes the connection).
 */
async function readLimited(
  response: Response,
  url: string,
  what: string,
  signal: AbortSignal,
): Promise<string> {
  const tooLarge = () => new KeyFetchError(url, 'too_large', `${what} ${url} is larger than 1 MiB`);
  const announced = Number(response.headers.get('content-length'));
  if (announced > MAX_DOCUMENT_BYTES) {
    void response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_DOCUMENT_BYTES) {
        cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
    return new TextDecoder().decode(Buffer.concat(chunks));
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

/** A stable code for a failed fetch (never its message, which may quote the server). */
function fetchErrorCode(error: unknown): string {
  const { name, cause } = error as { name?: unknown; cause?: { code?: unknown; message?: unknown } };
  if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
  if (typeof cause?.code === 'string') return cause.code;
  if (cause?.message === 'unexpected redirect') return 'redirect';
  return 'fetch_failed';
}

/** Log fields for a failed fetch: origin and path of the URL, and the HTTP status or error code. */
export function describeFailure(cause: unknown): Record<string, unknown> {
  if (!(cause instanceof KeyFetchError)) return { error: 'unexpected' };
  let url = cause.url;
  try {
    const parsed = new URL(cause.url);
    url = `${parsed.origin}${parsed.pathname}`;
  } catch {
    // A configured URL always parses; a discovered one is checked before it is fetched.
  }
  if (cause.status !== undefined) return { url, status: cause.status };
  return cause.discoveredIssuer === undefined
    ? { url, error: cause.reason }
    : { url, error: cause.reason, discovered_issuer: cause.discoveredIssuer };
}
